import { isLoopbackHost, OidcLoginFailed, OidcProviderFailed } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import type * as OpenIdClient from "openid-client"
import { lazyModule } from "../util/LazyModule.js"

// Loaded when an OIDC client is made, i.e. only with `auth.oidc` configured.
const openIdClient = lazyModule(() => import("openid-client"))

/** What the OIDC client needs: the provider, this client's registration, and where the provider sends users back. */
export interface OidcClientSettings {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string> | undefined
  readonly scopes: ReadonlyArray<string>
  /** `<public url>/api/v1/auth/callback`, registered at the provider. */
  readonly redirectUri: string
}

/** Claims of a verified sign-in: the ID token's, with the userinfo endpoint's added when the token lacks some. */
export type OidcClaims = Readonly<Record<string, unknown>>

// The same loopback the config file's `auth.oidc.issuer` is checked against.
const isLoopbackHttp = (url: URL) => url.protocol === "http:" && isLoopbackHost(url.hostname)

// The provider's own failures (unreachable, 5xx) are a 502; anything about this login — a refused or replayed
// code, a state, nonce or signature that does not check out, an expired token — is the login's fault (400).
const classify = (client: typeof OpenIdClient, issuer: string) => (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error)
  if (error instanceof client.ResponseBodyError) {
    const described = `${error.error}${error.error_description === undefined ? "" : `: ${error.error_description}`}`
    return error.status >= 500
      ? new OidcProviderFailed({ issuer, message: described })
      : new OidcLoginFailed({ message: `the OpenID provider refused the sign-in (${described})` })
  }
  if (error instanceof client.AuthorizationResponseError) {
    return new OidcLoginFailed({
      message: `the OpenID provider refused the sign-in (${error.error}${error.error_description === undefined ? "" : `: ${error.error_description}`})`
    })
  }
  if (error instanceof client.ClientError && error.code !== undefined && error.code.startsWith("OAUTH_")) {
    // openid-client's message names the kind of check ("unexpected JWT claim value encountered"); its cause says
    // which one failed (the "nonce", an expired "exp": clock skew), which is what an operator needs to know.
    const cause = error.cause instanceof Error && error.cause.message !== message ? ` (${error.cause.message})` : ""
    return new OidcLoginFailed({ message: `the sign-in did not check out: ${message}${cause}` })
  }
  return new OidcProviderFailed({ issuer, message })
}

/**
 * An OpenID Connect relying party on `openid-client`: discovery from the issuer (cached once it worked, retried on
 * the next sign-in while it does not), the authorization-code flow with PKCE, `state` and `nonce`, ID token checks,
 * and the provider's end-session URL. Plain `http://` is accepted only for a provider on loopback (development and
 * tests); anything else must be HTTPS.
 */
export const makeOidcClient = Effect.fn("OidcClient.make")(function* (settings: OidcClientSettings) {
  const client = yield* openIdClient
  const issuer = new URL(settings.issuer)
  const insecure = isLoopbackHttp(issuer)
  const cached = yield* Ref.make(Option.none<OpenIdClient.Configuration>())
  const failed = classify(client, settings.issuer)

  const configuration = Effect.gen(function* () {
    const known = yield* Ref.get(cached)
    if (Option.isSome(known)) return known.value
    const secret = settings.clientSecret === undefined ? undefined : Redacted.value(settings.clientSecret)
    const discovered = yield* Effect.tryPromise({
      try: () =>
        client.discovery(
          issuer,
          settings.clientId,
          secret === undefined ? { token_endpoint_auth_method: "none" } : undefined,
          secret === undefined ? client.None() : client.ClientSecretPost(secret),
          insecure ? { execute: [client.allowInsecureRequests] } : undefined
        ),
      catch: (error) =>
        new OidcProviderFailed({
          issuer: settings.issuer,
          message: `discovery failed: ${error instanceof Error ? error.message : String(error)}`
        })
    })
    yield* Ref.set(cached, Option.some(discovered))
    return discovered
  })

  return {
    /** The provider's authorization URL for a new login, with the checks the callback must see again. */
    begin: Effect.fn("OidcClient.begin")(function* () {
      const config = yield* configuration
      const state = client.randomState()
      const nonce = client.randomNonce()
      const codeVerifier = client.randomPKCECodeVerifier()
      const codeChallenge = yield* Effect.promise(() => client.calculatePKCECodeChallenge(codeVerifier))
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes.join(" "),
        state,
        nonce,
        code_challenge: codeChallenge,
        code_challenge_method: "S256"
      })
      return { url: url.href, state, nonce, codeVerifier }
    }),
    /**
     * Checks the provider's redirect (`currentUrl`: state, code) against what `begin` made, redeems the code with
     * the PKCE verifier, verifies the ID token (signature, issuer, audience, expiry, nonce), and returns its claims,
     * completed from the userinfo endpoint when the groups claim is missing.
     */
    complete: Effect.fn("OidcClient.complete")(function* (
      currentUrl: URL,
      expected: {
        readonly state: string
        readonly nonce: string
        readonly codeVerifier: string
        readonly groupsClaim: string
      }
    ) {
      const config = yield* configuration
      const tokens = yield* Effect.tryPromise({
        try: () =>
          client.authorizationCodeGrant(config, currentUrl, {
            expectedState: expected.state,
            expectedNonce: expected.nonce,
            pkceCodeVerifier: expected.codeVerifier,
            idTokenExpected: true
          }),
        catch: failed
      })
      const claims: Record<string, unknown> = { ...tokens.claims() }
      if (claims[expected.groupsClaim] !== undefined || config.serverMetadata().userinfo_endpoint === undefined) {
        return claims as OidcClaims
      }
      const userinfo = yield* Effect.tryPromise({
        try: () => client.fetchUserInfo(config, tokens.access_token, String(claims.sub)),
        catch: failed
      })
      return { ...userinfo, ...claims } as OidcClaims
    }),
    /** Where to send a browser to end its session at the provider too, if the provider offers that. */
    endSessionUrl: Effect.fn("OidcClient.endSessionUrl")(function* (postLogoutRedirectUri: string) {
      const config = yield* Effect.option(configuration)
      if (Option.isNone(config) || config.value.serverMetadata().end_session_endpoint === undefined) {
        return Option.none<string>()
      }
      return Option.some(
        client.buildEndSessionUrl(config.value, {
          client_id: settings.clientId,
          post_logout_redirect_uri: postLogoutRedirectUri
        }).href
      )
    })
  }
})

/** An OIDC relying party. */
export type OidcClient = Effect.Success<ReturnType<typeof makeOidcClient>>
