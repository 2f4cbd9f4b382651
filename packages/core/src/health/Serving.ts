import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"

/** Waits until the server's own listeners accept connections (see {@link Serving}). */
export interface ServingShape {
  readonly whenListening: Effect.Effect<void>
}

/**
 * Whether the process's own listeners (HTTP, gRPC) accept connections yet. Health monitors wait for it before their
 * first check: a route may target the server itself (the example `gatehouse` route checks `/api/v1/version`), and a
 * check run while the core starts, before the transports bind, would report the server down. The composition root
 * provides a signal it completes once its transports are built ({@link makeServingSignal}); without one (the core
 * embedded with no transport of ours) the server counts as serving at once, so checks still start.
 */
export class Serving extends Context.Reference<ServingShape>("@gatehouse-edge/core/Serving", {
  defaultValue: () => ({ whenListening: Effect.void })
}) {}

/** A serving signal: `serving` goes to the core, `listening` is run once every listener is bound (idempotent). */
export const makeServingSignal: Effect.Effect<{
  readonly serving: ServingShape
  readonly listening: Effect.Effect<void>
}> = Effect.map(Deferred.make<void>(), (bound) => ({
  serving: { whenListening: Deferred.await(bound) },
  listening: Effect.asVoid(Deferred.succeed(bound, undefined))
}))
