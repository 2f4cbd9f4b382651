import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import { type AgentReply, CookieAgent, formOf } from "../support/CookieAgent.js"
import { freePort } from "../support/FreePort.js"
import { type OidcProvider, type OidcUser, oidcConfigYaml, startOidcProvider } from "../support/OidcProvider.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/*
 * Sign-in with OpenID Connect against a real provider (oidc-provider, in process, on loopback), driven with fetch
 * the way a browser would: every redirect is followed by hand with a cookie jar, the provider's sign-in and consent
 * forms are submitted, and the provider's redirect back to Gatehouse's callback is where a test can step in.
 */

const users: ReadonlyArray<OidcUser> = [
  { name: "ada", password: "ada-secret", groups: ["gatehouse-admins", "staff"] },
  { name: "vic", password: "vic-secret", groups: ["gatehouse-viewers"] },
  { name: "mallory", password: "mallory-secret", groups: ["staff"] },
  // An opaque id at the provider, as most providers give: her user name is only her preferred_username.
  { name: "carol", password: "carol-secret", groups: [], sub: "u-5c1e0a" }
]

/** Who may sign in, and as what: admins and viewers by group. */
const byGroups = [
  "allowed_groups: [gatehouse-admins, gatehouse-viewers]",
  "roles:",
  "  admin: [gatehouse-admins]",
  "  viewer: [gatehouse-viewers]"
]

interface Fixture {
  readonly server: TestServer
  readonly provider: OidcProvider
  /** A new browser (its own cookies). */
  readonly browser: () => CookieAgent
}

/**
 * Gatehouse with `auth.oidc` pointing at a fresh provider (the provider registers Gatehouse's callback); `admission`
 * are the lines saying who may sign in (default {@link byGroups}).
 */
const setUp = (
  options: { readonly idTokenTtlSeconds?: number; readonly admission?: ReadonlyArray<string> } = {}
): Effect.Effect<Fixture, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const port = yield* freePort
    const { admission = byGroups, ...providerOptions } = options
    const provider = yield* startOidcProvider({ rpOrigin: `http://127.0.0.1:${port}`, users, ...providerOptions })
    const server = yield* startTestServer({ port, configYaml: oidcConfigYaml(provider, ...admission) })
    assert.strictEqual(server.origin, `http://127.0.0.1:${port}`)
    return { server, provider, browser: () => new CookieAgent() }
  })

/** The cookie holding a sign-in's state in the browser that started it: named after the URL's `state`. */
const stateCookieName = (url: URL | string) =>
  `gatehouse_oidc_state_${createHash("sha256").update(new URL(url).searchParams.get("state")!).digest("hex").slice(0, 8)}`

const isCallback = (server: TestServer) => (url: URL) =>
  url.origin === server.origin && url.pathname === "/api/v1/auth/callback"

/**
 * Starts a sign-in at Gatehouse (`GET /auth/login`), signs in at the provider with the user's password and
 * consents, and returns the provider's redirect to Gatehouse's callback without following it.
 */
const signInAtProvider = (
  f: Fixture,
  browser: CookieAgent,
  user: OidcUser,
  options: {
    readonly returnTo?: string
    /** Changes the authorization request on its way to the provider (an attacker's link). */
    readonly tamper?: (authorizationUrl: URL) => void
  } = {}
) =>
  Effect.gen(function* () {
    const query = options.returnTo === undefined ? "" : `?return_to=${encodeURIComponent(options.returnTo)}`
    const start = yield* browser.request(`${f.server.baseUrl}/auth/login${query}`)
    assert.strictEqual(start.status, 302, start.text)
    const authorization = new URL(start.location!)
    assert.strictEqual(authorization.origin, f.provider.issuer)
    assert.strictEqual(authorization.searchParams.get("code_challenge_method"), "S256")
    assert.isNotNull(authorization.searchParams.get("nonce"))
    options.tamper?.(authorization)

    const login = yield* browser.follow(authorization.href)
    assert.strictEqual(login.status, 200, login.text)
    assert.include(login.text, "Sign in to the test IdP")
    const loginForm = formOf(login)
    loginForm.fields.set("username", user.name)
    loginForm.fields.set("password", user.password)
    const signedIn = yield* browser.request(loginForm.action, { form: loginForm.fields })
    const consent = yield* browser.follow(signedIn.location!)
    assert.include(consent.text, "Authorize Gatehouse")
    const consentForm = formOf(consent)
    const consented = yield* browser.request(consentForm.action, { form: consentForm.fields })
    const back = yield* browser.follow(consented.location!, isCallback(f.server))
    const callback = new URL(back.location!)
    assert.isTrue(isCallback(f.server)(callback), `expected the callback, got ${callback.href}`)
    assert.isNotNull(callback.searchParams.get("code"))
    return callback
  })

/** The error body of a refused callback: status and `error.code`, with the message for the assertion's text. */
const refusal = (reply: AgentReply) => ({ status: reply.status, code: reply.json?.error?.code as string | undefined })

/** `GET /whoami` with exactly this session cookie (or none). */
const whoami = (f: Fixture, sessionCookie: string | undefined) =>
  new CookieAgent().request(`${f.server.baseUrl}/whoami`, {
    headers: sessionCookie === undefined ? {} : { cookie: `gatehouse_session=${sessionCookie}` }
  })

/** The server's `auth` events (read with the admin API key). */
const authEvents = (f: Fixture) =>
  new CookieAgent()
    .request(`${f.server.baseUrl}/events?category=auth`, { headers: { authorization: `Bearer ${f.server.apiKey}` } })
    .pipe(Effect.map((reply) => reply.json as ReadonlyArray<{ action: string; data: Record<string, unknown> }>))

const ada = users[0]!
const vic = users[1]!
const mallory = users[2]!
const carol = users[3]!

describe("OIDC sign-in against a real OpenID provider", () => {
  it.live("an admin group member signs in: a session cookie, whoami says oidc:ada (admin), back to return_to", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      const callback = yield* signInAtProvider(f, browser, ada, { returnTo: "/routes?view=all#top" })
      assert.isDefined(browser.cookie(stateCookieName(callback), callback.href), "the state is bound to this browser")

      const done = yield* browser.request(callback.href)
      assert.strictEqual(done.status, 302, done.text)
      assert.strictEqual(done.location, `${f.server.origin}/routes?view=all#top`)
      const session = browser.cookie("gatehouse_session", f.server.origin)
      assert.isDefined(session)
      assert.isDefined(browser.cookie("gatehouse_csrf", f.server.origin))
      assert.isUndefined(browser.cookie(stateCookieName(callback), callback.href), "the state cookie is cleared")
      assert.match(done.setCookies.find((c) => c.startsWith("gatehouse_session="))!, /HttpOnly/i)

      const me = yield* whoami(f, session)
      assert.strictEqual(me.status, 200, me.text)
      assert.deepInclude(me.json, { method: "oidc", subject: "oidc:ada", roles: ["admin"], scopes: ["admin"] })
      // An admin-only endpoint works with the cookie alone (a GET needs no CSRF token).
      const sessions = yield* browser.request(`${f.server.baseUrl}/sessions`)
      assert.strictEqual(sessions.status, 200, sessions.text)
      assert.includeMembers(
        sessions.json.map((s: { subject: string }) => s.subject),
        ["oidc:ada"]
      )
      const events = yield* authEvents(f)
      assert.deepInclude(
        events.map((e) => [e.action, e.data.subject, e.data.method]),
        ["login", "oidc:ada", "oidc"]
      )
      assert.deepStrictEqual(f.provider.serverErrors, [])
    }).pipe(Effect.scoped)
  )

  it.live("a member of a group mapped to viewer gets the viewer scopes: a write is 403 naming the scope", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      const done = yield* browser.request((yield* signInAtProvider(f, browser, vic)).href)
      assert.strictEqual(done.status, 302, done.text)
      assert.strictEqual(done.location, `${f.server.origin}/`)

      const me = yield* browser.request(`${f.server.baseUrl}/whoami`)
      assert.strictEqual(me.status, 200, me.text)
      assert.strictEqual(me.json.subject, "oidc:vic")
      assert.deepStrictEqual(me.json.roles, ["viewer"])
      assert.include(me.json.scopes, "auth_requests:read")
      assert.notInclude(me.json.scopes, "auth_requests:write")
      assert.notInclude(me.json.scopes, "admin")

      // Reading works; approving (auth_requests:write) is refused for the scope, not for a missing CSRF token.
      const list = yield* browser.request(`${f.server.baseUrl}/auth/requests`)
      assert.strictEqual(list.status, 200, list.text)
      const approve = yield* browser.request(`${f.server.baseUrl}/auth/approve`, {
        method: "POST",
        body: JSON.stringify({ auth_id: "ghreq_000000000000000000000000" }),
        headers: {
          "content-type": "application/json",
          "x-csrf-token": browser.cookie("gatehouse_csrf", f.server.origin)!
        }
      })
      assert.strictEqual(approve.status, 403, approve.text)
      assert.strictEqual(approve.json.error.code, "permission_denied")
      assert.include(approve.json.error.message, '"auth_requests:write"')
    }).pipe(Effect.scoped)
  )

  it.live("a user outside allowed_groups is refused: 403, no session, an auth/login_failed event", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      const done = yield* browser.request((yield* signInAtProvider(f, browser, mallory)).href)
      assert.deepStrictEqual(refusal(done), { status: 403, code: "permission_denied" }, done.text)
      assert.include(done.json.error.message, "oidc:mallory")
      assert.isUndefined(browser.cookie("gatehouse_session", f.server.origin))
      assert.isFalse(done.setCookies.some((c) => c.startsWith("gatehouse_session=")))
      assert.strictEqual((yield* browser.request(`${f.server.baseUrl}/whoami`)).status, 401)

      const events = yield* authEvents(f)
      assert.deepInclude(
        events.map((e) => [e.action, e.data.username, e.data.method, e.data.reason]),
        ["login_failed", "mallory", "oidc", "not in allowed_users or allowed_groups"]
      )
      assert.notInclude(
        events.map((e) => e.action),
        "login"
      )
    }).pipe(Effect.scoped)
  )

  it.live(
    "allowed_users naming a user by preferred_username admits nobody; the refusal says what to list instead",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp({ admission: ["allowed_users: [carol]"] })
        const browser = f.browser()
        const done = yield* browser.request((yield* signInAtProvider(f, browser, carol)).href)
        assert.deepStrictEqual(refusal(done), { status: 403, code: "permission_denied" }, done.text)
        assert.strictEqual(
          done.json.error.message,
          "oidc:u-5c1e0a may not sign in here (not in allowed_users or allowed_groups): allowed_users lists their " +
            'preferred_username "carol", which admits nobody (users may choose it): list their verified email or ' +
            'their subject id (sub) "u-5c1e0a" instead'
        )
        assert.isUndefined(browser.cookie("gatehouse_session", f.server.origin))

        // Listed by her verified email, as the message says, she is admitted: an admin, named by the list, no roles.
        const fixed = yield* setUp({ admission: ["allowed_users: [carol@idp.test]"] })
        const again = fixed.browser()
        const signedIn = yield* again.request((yield* signInAtProvider(fixed, again, carol)).href)
        assert.strictEqual(signedIn.status, 302, signedIn.text)
        const me = yield* again.request(`${fixed.server.baseUrl}/whoami`)
        assert.deepInclude(me.json, { subject: "oidc:u-5c1e0a", roles: ["admin"] })
      }).pipe(Effect.scoped)
  )

  it.live("allow_any_user: true admits an account no list names, as a viewer", () =>
    Effect.gen(function* () {
      const f = yield* setUp({ admission: ["allow_any_user: true"] })
      const browser = f.browser()
      const done = yield* browser.request((yield* signInAtProvider(f, browser, mallory)).href)
      assert.strictEqual(done.status, 302, done.text)
      const me = yield* browser.request(`${f.server.baseUrl}/whoami`)
      assert.deepInclude(me.json, { subject: "oidc:mallory", roles: ["viewer"] })
    }).pipe(Effect.scoped)
  )

  it.live("two sign-ins started in one browser (two tabs, a double click): the first one's callback signs in", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      // Tab 1 goes to the provider; tab 2 starts another sign-in before tab 1 comes back.
      const first = yield* signInAtProvider(f, browser, ada, { returnTo: "/first" })
      const second = yield* browser.request(`${f.server.baseUrl}/auth/login?return_to=/second`)
      assert.strictEqual(second.status, 302, second.text)
      const done = yield* browser.request(first.href)
      assert.strictEqual(done.status, 302, done.text)
      assert.strictEqual(done.location, `${f.server.origin}/first`)
      assert.strictEqual((yield* browser.request(`${f.server.baseUrl}/whoami`)).json.subject, "oidc:ada")
      // Only the completed sign-in's cookie is cleared: tab 2's is still pending.
      assert.isUndefined(browser.cookie(stateCookieName(first), first.href))
      assert.isDefined(browser.cookie(stateCookieName(second.location!), first.href))
    }).pipe(Effect.scoped)
  )

  it.live("a browser holds at most 4 pending sign-ins: a fifth start expires the oldest one's cookie", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      const oldest = yield* signInAtProvider(f, browser, ada)
      const later: Array<string> = []
      for (let i = 0; i < 4; i++) {
        const start = yield* browser.request(`${f.server.baseUrl}/auth/login`)
        assert.strictEqual(start.status, 302, start.text)
        later.push(start.location!)
      }
      const callbackUrl = `${f.server.baseUrl}/auth/callback`
      assert.isUndefined(browser.cookie(stateCookieName(oldest), callbackUrl), "the oldest is dropped")
      for (const started of later) assert.isDefined(browser.cookie(stateCookieName(started), callbackUrl))
      const done = yield* browser.request(oldest.href)
      assert.deepStrictEqual(refusal(done), { status: 400, code: "invalid_argument" }, done.text)
      assert.include(done.json.error.message, "not belong to a sign-in started in this browser")
    }).pipe(Effect.scoped)
  )

  it.live("starting a sign-in takes from the address's allowance: the 11th start at once is 429", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const start = Effect.promise(() =>
        fetch(`${f.server.baseUrl}/auth/login?method=oidc`, {
          redirect: "manual",
          headers: { accept: "application/json" }
        })
      )
      const statuses: Array<number> = []
      for (let i = 0; i < 11; i++) statuses.push((yield* start).status)
      assert.deepStrictEqual(statuses, [...Array.from({ length: 10 }, () => 302), 429])
      const refused = yield* start
      assert.strictEqual(refused.status, 429)
      assert.isNotNull(refused.headers.get("retry-after"))
      assert.strictEqual(
        ((yield* Effect.promise(() => refused.json())) as { error: { code: string } }).error.code,
        "rate_limited"
      )
    }).pipe(Effect.scoped)
  )

  it.live("callbacks take from the address's allowance too: the 11th at once is 429, and records nothing", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const callback = Effect.promise(() =>
        fetch(`${f.server.baseUrl}/auth/callback?code=x&state=forged`, { headers: { accept: "application/json" } })
      )
      const statuses: Array<number> = []
      for (let i = 0; i < 10; i++) statuses.push((yield* callback).status)
      assert.deepStrictEqual(
        statuses,
        Array.from({ length: 10 }, () => 400)
      )
      const failedBefore = (yield* authEvents(f)).length
      const refused = yield* callback
      assert.strictEqual(refused.status, 429)
      assert.isNotNull(refused.headers.get("retry-after"))
      assert.strictEqual((yield* authEvents(f)).length, failedBefore, "a refused callback writes no event")
    }).pipe(Effect.scoped)
  )

  it.live("a callback without state is 400", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      const callback = yield* signInAtProvider(f, browser, ada)
      callback.searchParams.delete("state")
      const done = yield* browser.request(callback.href)
      assert.deepStrictEqual(refusal(done), { status: 400, code: "invalid_argument" }, done.text)
      assert.include(done.json.error.message, "no state")
      assert.isUndefined(browser.cookie("gatehouse_session", f.server.origin))
    }).pipe(Effect.scoped)
  )

  it.live(
    "a browser sent back with a refused callback sees the sign-in page with the reason, and the same status",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const browser = f.browser()
        const callback = yield* signInAtProvider(f, browser, ada)
        callback.searchParams.delete("state")
        const page = yield* browser.request(callback.href, { headers: { accept: "text/html,application/xhtml+xml" } })
        assert.strictEqual(page.status, 400, page.text)
        assert.match(page.headers.get("content-type") ?? "", /^text\/html/)
        assert.match(page.text, /<p class="error" role="alert">[^<]*no state/)
        // The way back in is on the page.
        assert.include(page.text, "/api/v1/auth/login?method=oidc")
        assert.isUndefined(browser.cookie("gatehouse_session", f.server.origin))
        // The provider's own refusal (the user declined consent): its error and description, on the same page.
        const other = f.browser()
        const started = yield* signInAtProvider(f, other, ada)
        const declined = new URL(started.href)
        declined.searchParams.delete("code")
        declined.searchParams.set("error", "access_denied")
        declined.searchParams.set("error_description", "the user said no")
        const refused = yield* other.request(declined.href, { headers: { accept: "text/html" } })
        assert.strictEqual(refused.status, 400, refused.text)
        assert.match(refused.headers.get("content-type") ?? "", /^text\/html/)
        assert.include(refused.text, "the OpenID provider refused the sign-in (access_denied: the user said no)")
        assert.isUndefined(other.cookie("gatehouse_session", f.server.origin))
      }).pipe(Effect.scoped)
  )

  it.live("a callback with another browser's state is 400, and leaves that browser's sign-in intact", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const victim = f.browser()
      const attacker = f.browser()
      // The attacker signs in and lures the victim to the attacker's callback URL (login CSRF): the victim's own
      // state cookie, from a sign-in of their own, does not match it.
      const attackersCallback = yield* signInAtProvider(f, attacker, vic)
      const victimsStart = yield* victim.request(`${f.server.baseUrl}/auth/login`)
      assert.isDefined(victim.cookie(stateCookieName(victimsStart.location!), attackersCallback.href))
      const lured = yield* victim.request(attackersCallback.href)
      assert.deepStrictEqual(refusal(lured), { status: 400, code: "invalid_argument" }, lured.text)
      assert.include(lured.json.error.message, "not belong to a sign-in started in this browser")
      assert.isUndefined(victim.cookie("gatehouse_session", f.server.origin))

      // Also a state cookie that is simply wrong (under the name of the callback's state).
      const mine = yield* signInAtProvider(f, victim, ada)
      const forged = yield* new CookieAgent().request(mine.href, {
        headers: { cookie: `${stateCookieName(mine)}=0.${"A".repeat(43)}` }
      })
      assert.deepStrictEqual(refusal(forged), { status: 400, code: "invalid_argument" }, forged.text)
      // Refusing a wrong state did not use up the real one: the victim's own callback still signs them in.
      const done = yield* victim.request(mine.href)
      assert.strictEqual(done.status, 302, done.text)
      assert.strictEqual((yield* victim.request(`${f.server.baseUrl}/whoami`)).json.subject, "oidc:ada")
    }).pipe(Effect.scoped)
  )

  it.live("a replayed callback (the same code and state again, with the state cookie) is 400", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      const callback = yield* signInAtProvider(f, browser, ada)
      const stateCookie = `${stateCookieName(callback)}=${browser.cookie(stateCookieName(callback), callback.href)!}`
      const first = yield* browser.request(callback.href)
      assert.strictEqual(first.status, 302, first.text)

      // Whoever captured the URL and the cookie cannot use them again.
      const replay = yield* new CookieAgent().request(callback.href, {
        headers: { cookie: stateCookie }
      })
      assert.deepStrictEqual(refusal(replay), { status: 400, code: "invalid_argument" }, replay.text)
      assert.strictEqual(replay.json.error.message, "unknown, used or expired state: start the sign-in again")
      assert.isFalse(replay.setCookies.some((c) => c.startsWith("gatehouse_session=")))
    }).pipe(Effect.scoped)
  )

  it.live("an ID token with another nonce than the sign-in's is 400", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      // The authorization request reaches the provider with another nonce (as from a link an attacker made from
      // their own sign-in): the provider puts that nonce in the ID token, which is not the one Gatehouse stored.
      const callback = yield* signInAtProvider(f, browser, ada, {
        tamper: (url) => url.searchParams.set("nonce", "a-nonce-gatehouse-never-made")
      })
      const done = yield* browser.request(callback.href)
      assert.deepStrictEqual(refusal(done), { status: 400, code: "invalid_argument" }, done.text)
      assert.include(done.json.error.message, 'unexpected ID Token "nonce" claim value')
      assert.isUndefined(browser.cookie("gatehouse_session", f.server.origin))
      const events = yield* authEvents(f)
      assert.isTrue(
        events.some((e) => e.action === "login_failed" && String(e.data.reason).includes("nonce")),
        JSON.stringify(events)
      )
    }).pipe(Effect.scoped)
  )

  it.live("an ID token that is expired on arrival is 400", () =>
    Effect.gen(function* () {
      // exp = iat - 120 s: beyond openid-client's default clock tolerance of 30 s, so the token is expired however
      // fast the test runs (a short positive lifetime would need a wall-clock wait of more than 30 s instead).
      const f = yield* setUp({ idTokenTtlSeconds: -120 })
      const browser = f.browser()
      const done = yield* browser.request((yield* signInAtProvider(f, browser, ada)).href)
      assert.deepStrictEqual(refusal(done), { status: 400, code: "invalid_argument" }, done.text)
      assert.include(done.json.error.message, '"exp" (expiration time)')
      assert.isUndefined(browser.cookie("gatehouse_session", f.server.origin))
    }).pipe(Effect.scoped)
  )

  it.live("return_to pointing at another site is ignored: after sign-in the browser lands on /", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      for (const returnTo of ["https://evil.example", "//evil.example/x", "/\\evil.example"]) {
        const browser = f.browser()
        const done = yield* browser.request((yield* signInAtProvider(f, browser, ada, { returnTo })).href)
        assert.strictEqual(done.status, 302, done.text)
        assert.strictEqual(done.location, `${f.server.origin}/`, returnTo)
      }
    }).pipe(Effect.scoped)
  )

  it.live("signing out of an OIDC session goes on to the provider's end-session page; the cookie is dead", () =>
    Effect.gen(function* () {
      const f = yield* setUp()
      const browser = f.browser()
      yield* browser.request((yield* signInAtProvider(f, browser, ada)).href)
      const session = browser.cookie("gatehouse_session", f.server.origin)!
      assert.strictEqual((yield* whoami(f, session)).status, 200)

      const out = yield* browser.request(`${f.server.baseUrl}/auth/logout`, {
        headers: { "x-csrf-token": browser.cookie("gatehouse_csrf", f.server.origin)! }
      })
      assert.strictEqual(out.status, 302, out.text)
      const endSession = new URL(out.location!)
      assert.strictEqual(`${endSession.origin}${endSession.pathname}`, f.provider.endSessionEndpoint)
      assert.strictEqual(endSession.searchParams.get("client_id"), f.provider.clientId)
      assert.strictEqual(endSession.searchParams.get("post_logout_redirect_uri"), `${f.server.origin}/login`)
      assert.isUndefined(browser.cookie("gatehouse_session", f.server.origin), "the cookies are cleared")

      // The old cookie is refused: the session ended on the server, not only in the browser.
      const after = yield* whoami(f, session)
      assert.deepStrictEqual(refusal(after), { status: 401, code: "unauthenticated" }, after.text)

      // The provider accepts the request (client and return address registered) and sends the browser back to
      // Gatehouse's sign-in page once the user confirms.
      const confirm = yield* browser.follow(endSession.href)
      assert.strictEqual(confirm.status, 200, confirm.text)
      const form = formOf(confirm)
      form.fields.set("logout", "yes")
      const back = yield* browser.request(form.action, { form: form.fields })
      assert.strictEqual(back.status, 303, back.text)
      assert.strictEqual(
        `${new URL(back.location!).origin}${new URL(back.location!).pathname}`,
        `${f.server.origin}/login`
      )

      // The overview's Sign out button posts instead (with its CSRF token) and goes where the answer says.
      const other = f.browser()
      yield* other.request((yield* signInAtProvider(f, other, ada)).href)
      const posted = yield* other.request(`${f.server.baseUrl}/auth/logout`, {
        method: "POST",
        headers: { "x-csrf-token": other.cookie("gatehouse_csrf", f.server.origin)! }
      })
      assert.strictEqual(posted.status, 200, posted.text)
      assert.strictEqual(posted.json.message, "signed out")
      assert.isTrue(String(posted.json.redirect).startsWith(`${f.provider.endSessionEndpoint}?`), posted.text)
      assert.strictEqual((yield* other.request(`${f.server.baseUrl}/whoami`)).status, 401)
      assert.deepStrictEqual(f.provider.serverErrors, [])
    }).pipe(Effect.scoped)
  )

  it.live(
    "a plain link to sign out asks to confirm; the confirmation's form signs out and goes on to the provider",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const browser = f.browser()
        yield* browser.request((yield* signInAtProvider(f, browser, ada)).href)
        const session = browser.cookie("gatehouse_session", f.server.origin)!
        const csrf = browser.cookie("gatehouse_csrf", f.server.origin)!
        assert.strictEqual((yield* whoami(f, session)).status, 200)

        // A link (no header) from a browser: the confirmation page, not a 403, and nothing ended yet.
        const page = yield* browser.request(`${f.server.baseUrl}/auth/logout`, {
          headers: { accept: "text/html,application/xhtml+xml" }
        })
        assert.strictEqual(page.status, 200, page.text)
        assert.match(page.headers.get("content-type") ?? "", /^text\/html/)
        assert.strictEqual(page.headers.get("cache-control"), "no-store")
        assert.strictEqual(page.headers.get("x-frame-options"), "DENY")
        // The form's answer redirects to the provider: the page lets its form lead there, and nowhere else.
        const csp = page.headers.get("content-security-policy") ?? ""
        assert.include(csp, `form-action 'self' ${new URL(f.provider.endSessionEndpoint).origin};`)
        assert.include(csp, "frame-ancestors 'none'")
        const form = formOf(page)
        assert.strictEqual(form.action, `${f.server.baseUrl}/auth/logout`)
        assert.strictEqual(form.fields.get("csrf_token"), csrf)
        assert.deepStrictEqual(page.setCookies, [])
        assert.strictEqual((yield* whoami(f, session)).status, 200, "still signed in")

        const out = yield* browser.request(form.action, { form: form.fields })
        assert.strictEqual(out.status, 303, out.text)
        const endSession = new URL(out.location!)
        assert.strictEqual(`${endSession.origin}${endSession.pathname}`, f.provider.endSessionEndpoint)
        assert.strictEqual(endSession.searchParams.get("post_logout_redirect_uri"), `${f.server.origin}/login`)
        assert.isUndefined(browser.cookie("gatehouse_session", f.server.origin), "the cookies are cleared")
        assert.isUndefined(browser.cookie("gatehouse_csrf", f.server.origin))
        const after = yield* whoami(f, session)
        assert.deepStrictEqual(refusal(after), { status: 401, code: "unauthenticated" }, after.text)
        // The provider takes it from there, as after the GET with the header.
        const confirm = yield* browser.follow(endSession.href)
        assert.strictEqual(confirm.status, 200, confirm.text)
        assert.deepStrictEqual(f.provider.serverErrors, [])
      }).pipe(Effect.scoped)
  )
})
