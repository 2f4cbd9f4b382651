import { generateKeyPairSync, randomBytes } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Scope } from "effect"
import { type InteractionDetails, Provider } from "oidc-provider"

/** A user of the test provider: signs in with `name` and `password`; `groups` end up in the `groups` claim. */
export interface OidcUser {
  readonly name: string
  readonly password: string
  readonly groups: ReadonlyArray<string>
  /**
   * The provider's id for the user (`sub`), as opaque as most providers make it; default: the name. The name is
   * the `preferred_username` either way.
   */
  readonly sub?: string
}

/** Options of {@link startOidcProvider}. */
export interface OidcProviderOptions {
  /** The relying party's origin (Gatehouse's `http.public_url`): its callback and `/login` are registered. */
  readonly rpOrigin: string
  readonly users: ReadonlyArray<OidcUser>
  /**
   * Lifetime of the ID tokens in seconds (default 600). Zero or less issues tokens that are already expired:
   * `exp` = `iat` + this. oidc-provider's `ttl.IdToken` setting accepts positive lifetimes only, so a negative one
   * replaces `expiresIn` of this provider's own ID token class (each `Provider` has its own): the token is still
   * signed and issued by the provider the normal way, only its `exp` lies in the past.
   */
  readonly idTokenTtlSeconds?: number
}

/** A running provider: what Gatehouse's `auth.oidc` needs, and where its endpoints are. */
export interface OidcProvider {
  /** `http://127.0.0.1:<port>`: the issuer and the provider's origin. */
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** The end-session (RP-initiated logout) endpoint. */
  readonly endSessionEndpoint: string
  /** Server errors the provider ran into (a test asserts there were none when a failure must be Gatehouse's). */
  readonly serverErrors: ReadonlyArray<string>
}

/** Gatehouse's `auth` section for this provider: the client, the groups scope, and the given extra lines. */
export const oidcConfigYaml = (provider: OidcProvider, ...extra: ReadonlyArray<string>): string =>
  [
    "auth:",
    "  oidc:",
    `    issuer: ${provider.issuer}`,
    `    client_id: ${provider.clientId}`,
    `    client_secret: ${provider.clientSecret}`,
    "    scopes: [openid, profile, email, groups]",
    ...extra.map((line) => `    ${line}`)
  ].join("\n")

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

// The provider's own pages, without external resources (its default pages load a web font from the internet).
const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Test IdP</title></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`

const loginForm = (uid: string, error?: string) =>
  page(
    "Sign in to the test IdP",
    `${error === undefined ? "" : `<p role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
  <label for="username">Username</label> <input id="username" name="username" autocomplete="username" required>
  <label for="password">Password</label> <input id="password" name="password" type="password" required>
  <button type="submit">Sign in</button>
</form>`
  )

const consentForm = (uid: string, details: InteractionDetails["prompt"]["details"]) =>
  page(
    "Authorize Gatehouse",
    `<p>Gatehouse asks for: ${escapeHtml([...(details.missingOIDCScope ?? [])].join(" "))}</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/confirm">
  <button type="submit">Allow</button>
</form>`
  )

const readForm = (req: http.IncomingMessage) =>
  new Promise<URLSearchParams>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))))
    req.on("error", reject)
  })

const send = (res: http.ServerResponse, status: number, html: string) => {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
  res.end(html)
}

/**
 * The sign-in and consent steps of an authorization request (`/interaction/<uid>`), in place of oidc-provider's
 * development pages (which sign anyone in under any name, password unchecked): a login form that checks the
 * user's password, then a consent form granting the requested scopes and claims, the way the library's own
 * `devInteractions` grants them.
 */
const interactions =
  (provider: Provider, users: ReadonlyMap<string, OidcUser>) =>
  async (req: http.IncomingMessage, res: http.ServerResponse, path: string) => {
    const details = await provider.interactionDetails(req, res)
    const action = /^\/interaction\/[^/]+\/(login|confirm)$/.exec(path)?.[1]
    if (req.method === "GET" && action === undefined) {
      if (details.prompt.name === "login") return send(res, 200, loginForm(details.uid))
      if (details.prompt.name === "consent") return send(res, 200, consentForm(details.uid, details.prompt.details))
      return send(res, 501, page("Not implemented", escapeHtml(details.prompt.name)))
    }
    if (req.method === "POST" && action === "login" && details.prompt.name === "login") {
      const form = await readForm(req)
      const user = users.get(form.get("username") ?? "")
      if (user === undefined || user.password !== form.get("password")) {
        return send(res, 401, loginForm(details.uid, "Wrong user name or password."))
      }
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: user.sub ?? user.name } },
        { mergeWithLastSubmission: false }
      )
    }
    if (req.method === "POST" && action === "confirm" && details.prompt.name === "consent") {
      const accountId = details.session?.accountId
      const clientId = String(details.params.client_id)
      if (accountId === undefined) return send(res, 400, page("No session", "Sign in first."))
      const grant =
        (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
        new provider.Grant({ accountId, clientId })
      const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details
      if (missingOIDCScope !== undefined) grant.addOIDCScope(missingOIDCScope.join(" "))
      if (missingOIDCClaims !== undefined) grant.addOIDCClaims(missingOIDCClaims)
      for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(" "))
      }
      const grantId = await grant.save()
      return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
    }
    return send(res, 400, page("Unexpected step", `${escapeHtml(req.method ?? "")} ${escapeHtml(path)}`))
  }

/**
 * A real OpenID provider (npm `oidc-provider`) in this process, on a free loopback port over plain http (the
 * library sets its cookies `Secure` only when the request came over TLS, so nothing else is needed for http): one
 * confidential client for Gatehouse (`client_secret_post`, authorization code only, PKCE required) with its
 * callback and `/login` (post-logout) registered; `users` sign in with their passwords; the scopes `profile`
 * (`preferred_username`), `email` and `groups` (the `groups` claim). As oidc-provider does by default for the code
 * flow, the ID token carries only `sub` (and the protocol claims): the other claims come from the userinfo
 * endpoint, which Gatehouse asks when the ID token lacks the groups claim. RP-initiated logout is enabled. Stopped
 * (connections closed) when the scope closes.
 */
export const startOidcProvider = (options: OidcProviderOptions): Effect.Effect<OidcProvider, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Listen first: the issuer is the provider's own origin, with the port the OS picked.
    const route: { handler: http.RequestListener } = { handler: (_req, res) => res.writeHead(503).end() }
    const server = yield* Effect.acquireRelease(
      Effect.callback<http.Server>((resume) => {
        const server = http.createServer((req, res) => route.handler(req, res))
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const clientId = "gatehouse"
    const clientSecret = randomBytes(24).toString("base64url")
    const users = new Map(options.users.map((user) => [user.name, user]))
    const accounts = new Map(options.users.map((user) => [user.sub ?? user.name, user]))
    const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" })
    const ttl = options.idTokenTtlSeconds ?? 600

    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [`${options.rpOrigin}/api/v1/auth/callback`],
          post_logout_redirect_uris: [`${options.rpOrigin}/login`],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_post"
        }
      ],
      pkce: { required: () => true },
      jwks: { keys: [{ ...signingKey, use: "sig", alg: "RS256", kid: "test-key" }] },
      cookies: { keys: [randomBytes(32).toString("base64url")] },
      claims: {
        openid: ["sub"],
        profile: ["preferred_username", "name"],
        email: ["email", "email_verified"],
        groups: ["groups"]
      },
      findAccount: (_ctx: unknown, sub: string) => {
        const user = accounts.get(sub)
        if (user === undefined) return undefined
        return {
          accountId: sub,
          claims: () => ({
            sub,
            preferred_username: user.name,
            name: user.name,
            email: `${user.name}@idp.test`,
            email_verified: true,
            groups: [...user.groups]
          })
        }
      },
      features: {
        devInteractions: { enabled: false },
        rpInitiatedLogout: {
          enabled: true,
          logoutSource: (ctx: { body: string }, form: string) => {
            ctx.body = page(
              "Sign out of the test IdP?",
              `${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>`
            )
          },
          postLogoutSuccessSource: (ctx: { body: string }) => {
            ctx.body = page("Signed out of the test IdP", "<p>You are signed out.</p>")
          }
        }
      },
      renderError: (ctx: { type: string; body: string }, out: Record<string, string>) => {
        ctx.type = "html"
        ctx.body = page("IdP error", `<pre>${escapeHtml(JSON.stringify(out))}</pre>`)
      },
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        IdToken: Math.max(ttl, 1),
        Interaction: 600,
        Session: 3600,
        Grant: 3600
      }
    })
    if (ttl <= 0) provider.IdToken.expiresIn = () => ttl
    const serverErrors: Array<string> = []
    provider.on("server_error", (_ctx: unknown, error: Error) => serverErrors.push(error.stack ?? String(error)))

    const app = provider.callback()
    const interact = interactions(provider, users)
    route.handler = (req, res) => {
      const path = new URL(req.url ?? "/", issuer).pathname
      if (!path.startsWith("/interaction/")) return app(req, res)
      interact(req, res, path).catch((error: unknown) => {
        // An interaction that is unknown or expired (a cookie that does not match): the browser's fault, shown.
        if (!res.headersSent) send(res, 400, page("Sign-in failed", escapeHtml(String(error))))
        else res.end()
      })
    }

    return {
      issuer,
      clientId,
      clientSecret,
      endSessionEndpoint: `${issuer}/session/end`,
      serverErrors
    }
  })
