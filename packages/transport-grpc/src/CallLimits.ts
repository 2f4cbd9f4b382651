import { clientKeyOf, RateLimited } from "@gatehouse-edge/core/domain"

/** How many calls and streams the gRPC listener serves at once; the HTTP API's defaults (`http.limits`). */
export interface GrpcLimits {
  /** Unary calls in flight from one client (an IPv4 address, an IPv6 /64). */
  readonly callsPerClient: number
  /** Open WatchAuthRequest streams of one client. */
  readonly streamsPerClient: number
  /** Open WatchAuthRequest streams of every client together. */
  readonly streams: number
  /** Open streams of one client to the services that need no key (Health/Watch, reflection). */
  readonly publicStreamsPerClient: number
  /** Open streams to the services that need no key, of every client together. */
  readonly publicStreams: number
}

/**
 * 256 calls and 1,000 streams per client, 4,000 streams in all: the same as the HTTP API's. The streams anyone may
 * open without a key have their own, small caps (10 per client, 100 in all), so they can never take the places of
 * authenticated watches (an SSH gate waiting for a verdict): a health checker needs one or two.
 */
export const defaultGrpcLimits: GrpcLimits = {
  callsPerClient: 256,
  streamsPerClient: 1000,
  streams: 4000,
  publicStreamsPerClient: 10,
  publicStreams: 100
}

/** Gives back a place; calling it again does nothing. */
export type Release = () => void

/**
 * The client of a call from grpc-js's `getPeer()`: `<address>:<port>` (an IPv6 address without brackets), or
 * `unknown` (a unix socket, whose clients all count as one).
 */
export const clientOfPeer = (peer: string): string => {
  const colon = peer.lastIndexOf(":")
  const address = colon > 0 && /^\d+$/.test(peer.slice(colon + 1)) ? peer.slice(0, colon) : peer
  return clientKeyOf(address)
}

const take = (counts: Map<string, number>, client: string, onRelease?: () => void): Release => {
  counts.set(client, (counts.get(client) ?? 0) + 1)
  let released = false
  return () => {
    if (released) return
    released = true
    const left = (counts.get(client) ?? 1) - 1
    if (left === 0) counts.delete(client)
    else counts.set(client, left)
    onRelease?.()
  }
}

/** Places for one kind of stream: at most `perClient` per client and `total` in all; `what` names them in refusals. */
const streamPlaces = (what: string, perClient: number, total: number) => {
  const counts = new Map<string, number>()
  let open = 0
  return {
    take: (peer: string): Release | RateLimited => {
      const client = clientOfPeer(peer)
      if ((counts.get(client) ?? 0) >= perClient) {
        return new RateLimited({ message: `too many ${what} from ${client} (limit ${perClient})`, retry_after_s: 1 })
      }
      if (open >= total) {
        return new RateLimited({ message: `too many ${what} on this server (limit ${total})`, retry_after_s: 1 })
      }
      open++
      return take(counts, client, () => {
        open--
      })
    },
    open: (): number => open
  }
}

/**
 * Counts the calls and streams in flight per client and in total, so one client (or many) cannot hold unbounded
 * fibers, subscriptions and buffers: a place is taken when a call starts and given back when it ends; past a cap
 * the call is refused with `RateLimited` (RESOURCE_EXHAUSTED). Streams that need no key are counted apart.
 */
export const makeCallLimits = (limits: GrpcLimits) => {
  const calls = new Map<string, number>()
  const streams = streamPlaces("streams", limits.streamsPerClient, limits.streams)
  const publicStreams = streamPlaces(
    "health and reflection streams",
    limits.publicStreamsPerClient,
    limits.publicStreams
  )

  return {
    /** A place for a unary call of the client at `peer`, or the refusal. */
    call: (peer: string): Release | RateLimited => {
      const client = clientOfPeer(peer)
      if ((calls.get(client) ?? 0) >= limits.callsPerClient) {
        return new RateLimited({
          message: `too many concurrent calls from ${client} (limit ${limits.callsPerClient}): retry shortly`,
          retry_after_s: 1
        })
      }
      return take(calls, client)
    },
    /** A place for an authenticated stream (WatchAuthRequest) of the client at `peer`, or the refusal. */
    stream: streams.take,
    /** A place for a stream of a service that needs no key (health, reflection), or the refusal. */
    publicStream: publicStreams.take,
    /** How many authenticated streams are open (tests, metrics). */
    openStreams: streams.open,
    /** How many streams of the services that need no key are open. */
    openPublicStreams: publicStreams.open,
    /** The caps themselves. */
    size: limits
  }
}

/** The call and stream counts of one listener. */
export type CallLimits = ReturnType<typeof makeCallLimits>
