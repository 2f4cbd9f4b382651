import type { Principal, PrincipalSession, Role, SessionInfo } from "@gatehouse-edge/contract/domain"
import { SessionNotFound, Unauthenticated } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/** Who a new session is for, and where it was started from (shown to admins listing sessions). */
export interface NewSession {
  readonly subject: string
  readonly method: "session" | "oidc"
  readonly role: Role
  readonly address: string
  readonly userAgent: string
  /**
   * A password sign-in: the user's password hash then. Only its keyed fingerprint is stored: the session ends when
   * the user's configured hash is no longer this one (a rotated password signs out who signed in with the old).
   */
  readonly passwordHash?: Redacted.Redacted<string> | undefined
  /**
   * An OpenID Connect sign-in: the claims it was admitted on (`sub`, `iss`, a verified email, the groups claim),
   * stored so that each use judges them again under the configuration the server runs with then.
   */
  readonly oidcClaims?: Readonly<Record<string, unknown>> | undefined
}

/** A new session: the signed cookie value (secret: it is the session), its CSRF token and what is stored. */
export interface IssuedSession {
  readonly cookie: Redacted.Redacted<string>
  readonly csrfToken: string
  readonly session: SessionInfo
}

/**
 * Browser sessions kept server-side: an opaque random token in a signed cookie, expiry with sliding renewal
 * (`auth.session_ttl`), revocation, and a CSRF token bound to each session. They survive a restart.
 */
export class Sessions extends Context.Service<
  Sessions,
  {
    /** The session lifetime (`auth.session_ttl`), for the cookie's `Max-Age`. */
    readonly ttlMs: number
    readonly create: (session: NewSession) => Effect.Effect<IssuedSession>
    /**
     * The principal of the session a cookie holds; renews it when it is due (`principal.session.renewed`).
     * A forged, expired or revoked cookie is `Unauthenticated`.
     */
    readonly authenticate: (cookie: Redacted.Redacted<string>) => Effect.Effect<Principal, Unauthenticated>
    /** The CSRF token of the session in `cookie` (to set its cookie again), if the cookie is well signed. */
    readonly csrfTokenOf: (cookie: Redacted.Redacted<string>) => string | undefined
    /** Whether `presented` is the CSRF token of the session in `cookie` (compared in constant time). */
    readonly csrfMatches: (cookie: Redacted.Redacted<string>, presented: string) => boolean
    /** Ends the session a cookie holds (logout, recorded as `auth/logout` by its subject); the session, if active. */
    readonly end: (cookie: Redacted.Redacted<string>) => Effect.Effect<Option.Option<SessionInfo>>
    /** Revokes a session by its public id (`gatehouse sessions revoke`); `by` is who did, for the event. */
    readonly revoke: (id: string, by: string) => Effect.Effect<SessionInfo, SessionNotFound>
    /**
     * Never succeeds: fails with `Unauthenticated` when this session is signed out, revoked, or expires (at its
     * expiry, unless it was renewed meanwhile), so a stream opened with it ends then.
     */
    readonly validUntilEnded: (session: PrincipalSession) => Effect.Effect<never, Unauthenticated>
    /** Active sessions, newest first. */
    readonly list: Effect.Effect<ReadonlyArray<SessionInfo>>
  }
>()("@gatehouse-edge/core/Sessions") {
  /**
   * For tests of compositions that only take API keys (the gRPC transport, the key path): no browser sessions at
   * all, every cookie is refused and none can be created.
   */
  static readonly layerTest: Layer.Layer<Sessions> = Layer.succeed(Sessions)(
    Sessions.of({
      ttlMs: 0,
      create: () => Effect.die(new Error("sessions are not enabled in this composition")),
      authenticate: () =>
        Effect.fail(new Unauthenticated({ message: "sessions are not enabled here: use an API key" })),
      csrfTokenOf: () => undefined,
      csrfMatches: () => false,
      end: () => Effect.succeed(Option.none()),
      revoke: (id) => Effect.fail(new SessionNotFound({ id })),
      validUntilEnded: () => Effect.never,
      list: Effect.succeed([])
    })
  )
}
