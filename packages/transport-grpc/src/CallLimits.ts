import { clientKeyOf, RateLimited } from "@gatehouse-edge/core/domain"

/** How many calls and streams the gRPC listener serves at once; the HTTP API's defaults (`http.limits`). */
export interface GrpcLimits {
  /** Unary calls in flight from one client (an IPv4 address, an IPv6 /64). */
  readonly callsPerClient: number
  /** Open streams (WatchAuthRequest, Health/Watch) of one client. */
  readonly streamsPerClient: number
  /** Open streams of every client together. */
  readonly streams: number
}

/** 256 calls and 1,000 streams per client, 4,000 streams in all: the same as the HTTP API's. */
export const defaultGrpcLimits: GrpcLimits = { callsPerClient: 256, streamsPerClient: 1000, streams: 4000 }

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

/**
 * Counts the calls and streams in flight per client and in total, so one client (or many) cannot hold unbounded
 * fibers, subscriptions and buffers: a place is taken when a call starts and given back when it ends; past a cap
 * the call is refused with `RateLimited` (RESOURCE_EXHAUSTED).
 */
export const makeCallLimits = (limits: GrpcLimits) => {
  const calls = new Map<string, number>()
  const streams = new Map<string, number>()
  let openStreams = 0

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
    /** A place for a stream of the client at `peer`, or the refusal. */
    stream: (peer: string): Release | RateLimited => {
      const client = clientOfPeer(peer)
      if ((streams.get(client) ?? 0) >= limits.streamsPerClient) {
        return new RateLimited({
          message: `too many streams from ${client} (limit ${limits.streamsPerClient})`,
          retry_after_s: 1
        })
      }
      if (openStreams >= limits.streams) {
        return new RateLimited({
          message: `too many streams on this server (limit ${limits.streams})`,
          retry_after_s: 1
        })
      }
      openStreams++
      return take(streams, client, () => {
        openStreams--
      })
    },
    /** How many streams are open (tests, metrics). */
    openStreams: (): number => openStreams,
    /** The caps themselves. */
    size: limits
  }
}

/** The call and stream counts of one listener. */
export type CallLimits = ReturnType<typeof makeCallLimits>
