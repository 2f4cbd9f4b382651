import { clientKeyOf, RateLimited } from "@gatehouse-edge/core/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { WebSocketPolicy } from "./WebSocketPolicy.js"

/**
 * The open WebSocket streams, counted per client (an IPv4 address, an IPv6 /64: see `clientKeyOf`) and in total,
 * so one client (or many) cannot hold an unbounded number of subscriptions, sockets and buffers. A stream holds its
 * place for as long as it is open.
 */
export class WebSocketConnections extends Context.Service<
  WebSocketConnections,
  {
    /**
     * Takes a place for the client at `address` until the scope closes, or fails with `RateLimited` (429) when a
     * cap is reached.
     */
    readonly acquire: (address: string) => Effect.Effect<void, RateLimited, Scope.Scope>
    /** How many streams are open. */
    readonly open: Effect.Effect<number>
  }
>()("@gatehouse-edge/transport-http/WebSocketConnections") {
  /** Counts in memory, with the caps of the current {@link WebSocketPolicy}. */
  static readonly layer: Layer.Layer<WebSocketConnections> = Layer.sync(WebSocketConnections, () => {
    const perClient = new Map<string, number>()
    let total = 0
    const release = (client: string) =>
      Effect.sync(() => {
        total--
        const left = (perClient.get(client) ?? 1) - 1
        if (left === 0) perClient.delete(client)
        else perClient.set(client, left)
      })
    return WebSocketConnections.of({
      acquire: Effect.fn("WebSocketConnections.acquire")(function* (address: string) {
        const client = clientKeyOf(address)
        const policy = yield* WebSocketPolicy
        const mine = perClient.get(client) ?? 0
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
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            total++
            perClient.set(client, (perClient.get(client) ?? 0) + 1)
          }),
          () => release(client)
        )
      }),
      open: Effect.sync(() => total)
    })
  })
}

/**
 * Whether the current request already holds its stream's place: a declared stream's handshake takes it before the
 * endpoint prepares anything (see `StreamEndpoint`), so a client over a cap starts no work; serving the stream then
 * takes no second place.
 */
export class StreamPlaceHeld extends Context.Reference<boolean>("@gatehouse-edge/transport-http/StreamPlaceHeld", {
  defaultValue: () => false
}) {}
