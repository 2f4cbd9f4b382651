import { clientKeyOf, RateLimited } from "@gatehouse-edge/core/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { QueuedBytes } from "./QueuedBytes.js"
import { type QueuedTooMuch, queuedTooMuch } from "./QueuedTooMuch.js"
import { WebSocketPolicy, type WebSocketPolicyShape } from "./WebSocketPolicy.js"

/**
 * A stream's place among the open ones, which also counts the bytes queued on its socket against its client's and
 * the server's budgets (`maxBufferedBytesPerClient`, `maxBufferedBytesPerServer`): every byte is counted when it
 * is written and uncounted when the kernel takes it, or when the socket is gone, whichever comes first.
 */
export interface StreamPlace {
  /**
   * Counts `bytes` about to be written, once they fit within both budgets: until then the stream waits for bytes
   * of the client's streams (or the server's) to leave, and fails with {@link QueuedTooMuch} after
   * `drainTimeoutMs`.
   */
  readonly queue: (bytes: number) => Effect.Effect<void, QueuedTooMuch>
  /** Uncounts `bytes` counted by `queue`: the kernel took them, or they were never written. */
  readonly sent: (bytes: number) => void
  /**
   * Keeps the place, and the bytes still counted on it, past its scope: the socket outlives the stream while a
   * close frame waits behind what the client has not read. `whenGone` is handed the release to call once the
   * socket is gone (at once if it already is); it counts once, and nothing else releases the place then.
   */
  readonly keepUntilGone: (whenGone: (release: () => void) => void) => void
}

/**
 * The open WebSocket streams, counted per client (an IPv4 address, an IPv6 /64: see `clientKeyOf`) and in total,
 * so one client (or many) cannot hold an unbounded number of subscriptions, sockets and buffers. A stream holds its
 * place, and the bytes queued for its client, for as long as its socket is open.
 */
export class WebSocketConnections extends Context.Service<
  WebSocketConnections,
  {
    /**
     * Takes a place for the client at `address` until the scope closes (or, once kept, its socket is gone), or
     * fails with `RateLimited` (429) when a cap is reached.
     */
    readonly acquire: (address: string) => Effect.Effect<StreamPlace, RateLimited, Scope.Scope>
    /** How many places are held: streams open, and those ended whose socket is not gone yet. */
    readonly open: Effect.Effect<number>
    /** How many of them are ended streams whose socket is not gone yet (the close grace). */
    readonly closing: Effect.Effect<number>
    /** Bytes counted as queued: for the client at `address`, or for every client. */
    readonly queuedBytes: (address?: string) => Effect.Effect<number>
  }
>()("@gatehouse-edge/transport-http/WebSocketConnections") {
  /** Counts in memory, with the caps of the current {@link WebSocketPolicy}. */
  static readonly layer: Layer.Layer<WebSocketConnections> = Layer.sync(WebSocketConnections, () => {
    const perClient = new Map<string, { streams: number; readonly queued: QueuedBytes }>()
    const all = new QueuedBytes()
    let total = 0
    let closing = 0

    const take = (client: string, policy: WebSocketPolicyShape): StreamPlace & { readonly leave: () => void } => {
      let mine = perClient.get(client)
      if (mine === undefined) {
        mine = { streams: 0, queued: new QueuedBytes() }
        perClient.set(client, mine)
      }
      const tally = mine
      tally.streams++
      total++
      // This stream's share of both counts.
      let queued = 0
      let state: "serving" | "kept" | "lingering" | "released" = "serving"
      const fits = (bytes: number) =>
        tally.queued.fits(bytes, policy.maxBufferedBytesPerClient) && all.fits(bytes, policy.maxBufferedBytesPerServer)
      const count = (bytes: number) => {
        // A place released is uncounted for good: the socket is gone, nothing it writes stays queued.
        if (state === "released") return
        queued += bytes
        tally.queued.bytes += bytes
        all.bytes += bytes
      }
      const uncount = (bytes: number) => {
        const leaving = Math.min(bytes, queued)
        if (leaving <= 0) return
        queued -= leaving
        tally.queued.bytes -= leaving
        all.bytes -= leaving
        // Both counts are down before anyone looks: a waiter checks both.
        tally.queued.wake()
        all.wake()
      }
      const release = () => {
        if (state === "released") return
        if (state === "lingering") closing--
        // Released before its bytes leave, so a waiter of its own that they wake counts nothing on it.
        state = "released"
        uncount(queued)
        total--
        tally.streams--
        if (tally.streams === 0) perClient.delete(client)
      }
      const queue = (bytes: number): Effect.Effect<void, QueuedTooMuch> =>
        Effect.suspend(() => {
          if (fits(bytes)) {
            count(bytes)
            return Effect.void
          }
          return Effect.callback<void>((resume) => {
            const waiter = () => {
              if (!fits(bytes)) return
              count(bytes)
              forget()
              resume(Effect.void)
            }
            const forget = () => {
              tally.queued.waiters.delete(waiter)
              all.waiters.delete(waiter)
            }
            tally.queued.waiters.add(waiter)
            all.waiters.add(waiter)
            return Effect.sync(forget)
          }).pipe(
            Effect.timeoutOrElse({
              duration: policy.drainTimeoutMs,
              orElse: () =>
                Effect.fail(
                  tally.queued.fits(bytes, policy.maxBufferedBytesPerClient)
                    ? queuedTooMuch("server", policy.maxBufferedBytesPerServer, all.bytes)
                    : queuedTooMuch("client", policy.maxBufferedBytesPerClient, tally.queued.bytes)
                )
            })
          )
        })
      return {
        queue,
        sent: uncount,
        keepUntilGone: (whenGone) => {
          if (state !== "serving") return
          state = "kept"
          whenGone(release)
        },
        leave: () => {
          if (state === "serving") release()
          else if (state === "kept") {
            state = "lingering"
            closing++
          }
        }
      }
    }

    return WebSocketConnections.of({
      acquire: Effect.fn("WebSocketConnections.acquire")(function* (address: string) {
        const client = clientKeyOf(address)
        const policy = yield* WebSocketPolicy
        const mine = perClient.get(client)?.streams ?? 0
        if (mine >= policy.maxConnectionsPerClient) {
          return yield* new RateLimited({
            message: `too many WebSocket streams from ${client} (limit ${policy.maxConnectionsPerClient})`,
            retry_after_s: 1
          })
        }
        if (total >= policy.maxConnections) {
          return yield* new RateLimited({
            message: `too many WebSocket streams on this server (limit ${policy.maxConnections})`,
            retry_after_s: 1
          })
        }
        // Counted and its release registered as one uninterruptible step: a client gone in between keeps no place.
        const place = yield* Effect.acquireRelease(
          Effect.sync(() => take(client, policy)),
          (place) => Effect.sync(place.leave)
        )
        return { queue: place.queue, sent: place.sent, keepUntilGone: place.keepUntilGone } satisfies StreamPlace
      }),
      open: Effect.sync(() => total),
      closing: Effect.sync(() => closing),
      queuedBytes: (address) =>
        Effect.sync(() =>
          address === undefined ? all.bytes : (perClient.get(clientKeyOf(address))?.queued.bytes ?? 0)
        )
    })
  })
}

/**
 * The place the current request already holds for its stream: a declared stream's handshake takes it before the
 * endpoint prepares anything (see `StreamEndpoint`), so a client over a cap starts no work; serving the stream then
 * takes no second place, and counts its bytes on this one.
 */
export class HeldStreamPlace extends Context.Reference<StreamPlace | undefined>(
  "@gatehouse-edge/transport-http/HeldStreamPlace",
  { defaultValue: () => undefined }
) {}
