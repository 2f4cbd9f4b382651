import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { Unauthenticated } from "../domain/CommonErrors.js"
import type { Principal } from "../domain/Principal.js"

/**
 * A credential as a transport received it, before anyone has checked it: an API key (`Authorization: Bearer`,
 * gRPC metadata) or a session cookie. Transports only extract; deciding who it belongs to is
 * {@link Authentication}'s job, so HTTP, gRPC and WebSocket callers are judged the same way.
 */
export type Credential =
  | { readonly _tag: "ApiKey"; readonly key: Redacted.Redacted<string> }
  | { readonly _tag: "Session"; readonly cookie: Redacted.Redacted<string> }

/** Turns a credential into the principal it proves, or fails with `Unauthenticated` (401 / UNAUTHENTICATED). */
export class Authentication extends Context.Service<
  Authentication,
  {
    readonly authenticate: (credential: Credential) => Effect.Effect<Principal, Unauthenticated>
    /** Forgets every key verified before, so a key revoked a moment ago is refused from the next request on. */
    readonly invalidateKeys: Effect.Effect<void>
  }
>()("@gatehouse-edge/core/Authentication") {
  /** Accepts exactly the given API keys (key to principal), and no session: for tests and embedding. */
  static readonly layerTest = (keys: Readonly<Record<string, Principal>>): Layer.Layer<Authentication> =>
    Layer.succeed(Authentication)(
      Authentication.of({
        authenticate: Effect.fn("Authentication.authenticate")(function* (credential: Credential) {
          const principal = credential._tag === "ApiKey" ? keys[Redacted.value(credential.key)] : undefined
          return principal ?? (yield* new Unauthenticated({ message: "missing or invalid API key" }))
        }),
        invalidateKeys: Effect.void
      })
    )
}
