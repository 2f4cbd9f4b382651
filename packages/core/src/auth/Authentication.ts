import type { Principal } from "@gatehouse-edge/contract/domain"
import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

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
    /**
     * Announces that the key with this prefix was revoked (after the store says so): every key verified before is
     * forgotten, so it is refused from the next request on, and streams opened with it end.
     */
    readonly keyRevoked: (prefix: string) => Effect.Effect<void>
    /**
     * Never succeeds: fails with `Unauthenticated` (saying why) as soon as the credential `principal` was proven
     * with stops being valid — the key is revoked or expires, the session is signed out, revoked or expires — so a
     * long-lived stream opened with it can end then. A principal without a credential (unix socket) never fails.
     */
    readonly validUntilRevoked: (principal: Principal) => Effect.Effect<never, Unauthenticated>
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
        keyRevoked: () => Effect.void,
        validUntilRevoked: () => Effect.never
      })
    )
}
