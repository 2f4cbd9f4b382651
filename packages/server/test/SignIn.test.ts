import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { hashPassword } from "@gatehouse-edge/core"
import { Effect } from "effect"
import { tempDir } from "../../../test/support/TempDir.js"
import { startTestServer, type TestServer } from "../../../test/support/TestServer.js"
import { Database } from "../../core/src/store/SqliteDriver.js"
import { openWs, type Reply, request } from "../../transport-http/test/support/Http.js"

// Two local users: an admin and a viewer, with argon2id hashes made the way `gatehouse hash-password` makes them.
const configYaml = Effect.gen(function* () {
  const alice = yield* hashPassword("alice-password")
  const vic = yield* hashPassword("vic-password")
  return `auth:
  session_ttl: 2h
  users:
    - { name: alice, password_hash: "${alice}" }
    - { name: vic, role: viewer, password_hash: "${vic}" }
`
})

const serverWithUsers = (env: Record<string, string> = {}) =>
  Effect.flatMap(configYaml, (yaml) => startTestServer({ configYaml: yaml, env }))

/** The cookies of a response's `Set-Cookie` headers: name → { value, attributes }. */
const cookiesOf = (reply: Reply) =>
  Object.fromEntries(
    reply.headers.getSetCookie().map((line) => {
      const [pair, ...attributes] = line.split(";").map((part) => part.trim())
      const [name, ...value] = pair!.split("=")
      return [name!, { value: value.join("="), attributes: attributes.map((a) => a.toLowerCase()) }]
    })
  )

const login = (server: TestServer, username: string, password: string, headers: Record<string, string> = {}) =>
  request(`${server.baseUrl}/auth/login`, {
    method: "POST",
    key: null,
    contentType: "application/json",
    body: JSON.stringify({ username, password }),
    headers
  })

/** Signs in and returns what a browser would keep: the Cookie header and the CSRF token. */
const signIn = (server: TestServer, username: string, password: string) =>
  Effect.map(login(server, username, password), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    const cookies = cookiesOf(reply)
    return {
      reply,
      cookie: `gatehouse_session=${cookies.gatehouse_session!.value}; gatehouse_csrf=${cookies.gatehouse_csrf!.value}`,
      csrf: cookies.gatehouse_csrf!.value,
      session: cookies.gatehouse_session!.value
    }
  })

const asBrowser = (cookie: string, extra: Record<string, string> = {}) => ({ key: null, headers: { cookie, ...extra } })

const writeRoutes = (server: TestServer, headers: Record<string, string>, key: string | null = null) =>
  request(`${server.baseUrl}/file/content?type=routes&filename=web.yml`, {
    method: "PUT",
    key,
    contentType: "application/yaml",
    body: "web:\n  port: 8080\n",
    headers
  })

describe("signing in with a local user", () => {
  it.live("GET /auth/login sends the browser to the login page: an accessible form without external assets", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const start = yield* Effect.promise(() =>
          fetch(`${server.baseUrl}/auth/login?return_to=/api/v1/health`, { redirect: "manual" })
        )
        assert.strictEqual(start.status, 302)
        assert.strictEqual(start.headers.get("location"), "/login?return_to=%2Fapi%2Fv1%2Fhealth")
        const page = yield* request(`${server.origin}/login?return_to=/api/v1/health`, { key: null })
        assert.strictEqual(page.status, 200)
        assert.match(page.headers.get("content-type") ?? "", /^text\/html/)
        assert.match(page.text, /<html lang="en">/)
        assert.match(
          page.text,
          /<label for="username">[^<]+<\/label>\s*<input id="username" name="username" autocomplete="username" required/
        )
        assert.match(
          page.text,
          /<label for="password">[^<]+<\/label>\s*<input id="password" name="password" type="password" autocomplete="current-password" required/
        )
        assert.match(page.text, /<form method="post" action="\/api\/v1\/auth\/login">/)
        assert.include(page.text, 'name="return_to" value="/api/v1/health"')
        assert.notMatch(page.text, /(src|href)="https?:/, "no external assets")
        const csp = page.headers.get("content-security-policy") ?? ""
        assert.include(csp, "default-src 'none'")
        assert.include(csp, "frame-ancestors 'none'")
        assert.include(csp, "form-action 'self'")
      })
    )
  )

  it.live("POST /auth/login (JSON) sets an HttpOnly session cookie and a CSRF cookie; the session works", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const { reply, cookie, csrf } = yield* signIn(server, "alice", "alice-password")
        const cookies = cookiesOf(reply)
        assert.includeMembers(cookies.gatehouse_session!.attributes, [
          "httponly",
          "samesite=lax",
          "path=/",
          "max-age=7200"
        ])
        assert.notInclude(cookies.gatehouse_session!.attributes, "secure", "plain http on loopback: no Secure")
        assert.includeMembers(cookies.gatehouse_csrf!.attributes, ["samesite=lax", "path=/"])
        assert.notInclude(cookies.gatehouse_csrf!.attributes, "httponly", "the page's script reads it")
        assert.strictEqual(reply.json.csrf_token, csrf)
        assert.deepStrictEqual(
          [reply.json.subject, reply.json.roles, reply.json.scopes],
          ["user:alice", ["admin"], ["admin"]]
        )
        const me = yield* request(`${server.baseUrl}/whoami`, asBrowser(cookie))
        assert.strictEqual(me.status, 200)
        assert.strictEqual(me.json.method, "session")
        assert.strictEqual(me.json.subject, "user:alice")
        const routes = yield* request(`${server.baseUrl}/route/list`, asBrowser(cookie))
        assert.strictEqual(routes.status, 200)
      })
    )
  )

  it.live("a form post signs in and goes to return_to, but never to another origin", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const post = (returnTo: string) =>
          Effect.promise(() =>
            fetch(`${server.baseUrl}/auth/login`, {
              method: "POST",
              redirect: "manual",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams({ username: "alice", password: "alice-password", return_to: returnTo })
            })
          )
        const local = yield* post("/api/v1/health")
        assert.strictEqual(local.status, 303)
        assert.strictEqual(local.headers.get("location"), "/api/v1/health")
        assert.isTrue(local.headers.getSetCookie().some((c) => c.startsWith("gatehouse_session=")))
        for (const evil of ["https://evil.example", "//evil.example/x", "/\\evil.example"]) {
          const redirected = yield* post(evil)
          assert.strictEqual(redirected.status, 303)
          assert.strictEqual(redirected.headers.get("location"), "/", evil)
        }
        const wrong = yield* Effect.promise(() =>
          fetch(`${server.baseUrl}/auth/login`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ username: "alice", password: "wrong" })
          })
        )
        assert.strictEqual(wrong.status, 401, "the page again, with the status a script would get")
        const html = yield* Effect.promise(() => wrong.text())
        assert.match(html, /<p class="error" role="alert">invalid user name or password<\/p>/)
        assert.include(html, 'value="alice"', "the name is kept, the password is not")
        assert.deepStrictEqual(wrong.headers.getSetCookie(), [])
      })
    )
  )

  it.live("a wrong password and an unknown user get the same answer; bad input is a 400 before any hashing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const wrong = yield* login(server, "alice", "not-it")
        const unknown = yield* login(server, "mallory", "not-it")
        assert.strictEqual(wrong.status, 401)
        assert.strictEqual(unknown.status, 401)
        assert.strictEqual(unknown.text, wrong.text)
        assert.deepStrictEqual(wrong.json, {
          error: { code: "unauthenticated", message: "invalid user name or password" }
        })
        const failedBefore = (yield* server.events.history({ category: "auth" })).length
        for (const body of [
          { username: "", password: "x" },
          { username: "alice", password: "" },
          { username: "alice" },
          // One past the longest password; a body past 16 KiB is not even read (413, see BodyBeforeAuthentication).
          { username: "alice", password: "x".repeat(1_025) }
        ]) {
          const reply = yield* request(`${server.baseUrl}/auth/login`, {
            method: "POST",
            key: null,
            contentType: "application/json",
            body: JSON.stringify(body)
          })
          assert.strictEqual(reply.status, 400, JSON.stringify(body).slice(0, 60))
          assert.strictEqual(reply.json.error.code, "invalid_argument")
        }
        assert.strictEqual(
          (yield* server.events.history({ category: "auth" })).length,
          failedBefore,
          "refused before the sign-in ran: nothing was hashed, no attempt recorded"
        )
      })
    )
  )

  it.live("20 rapid wrong passwords are rate limited: 429 with Retry-After", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const statuses: Array<number> = []
        let limited: Reply | undefined
        for (let i = 0; i < 20; i++) {
          const reply = yield* login(server, "alice", `guess-${i}`)
          statuses.push(reply.status)
          if (reply.status === 429) limited ??= reply
        }
        assert.deepStrictEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401])
        assert.deepStrictEqual(statuses.slice(5), Array(15).fill(429), "locked after 5 failures for one user")
        assert.match(limited!.headers.get("retry-after") ?? "", /^[1-9]\d*$/)
        assert.strictEqual(limited!.json.error.code, "rate_limited")
        const right = yield* login(server, "alice", "alice-password")
        assert.strictEqual(right.status, 429, "even the right password waits while the user is locked")
        const others = yield* login(server, "vic", "vic-password")
        assert.strictEqual(others.status, 200, "other users are not locked, and refused attempts cost no allowance")
      })
    )
  )

  it.live("a sign-in from another origin is refused (a page cannot sign a browser in as someone else)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const cross = yield* login(server, "alice", "alice-password", { origin: "http://evil.example" })
        assert.strictEqual(cross.status, 403)
        assert.deepStrictEqual(cross.headers.getSetCookie(), [])
        const same = yield* login(server, "alice", "alice-password", { origin: server.origin })
        assert.strictEqual(same.status, 200)
      })
    )
  )
})

describe("http.public_url", () => {
  it.live("written with the scheme's default port, it is the origin browsers send: sign-in and WebSockets work", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const hash = yield* hashPassword("alice-password")
        const server = yield* startTestServer({
          configYaml: `http:\n  public_url: https://localhost:443\nauth:\n  users: [{ name: alice, password_hash: "${hash}" }]\n`
        })
        // A browser on https://localhost:443 sends `Origin: https://localhost`, the default port left out.
        const signedIn = yield* login(server, "alice", "alice-password", { origin: "https://localhost" })
        assert.strictEqual(signedIn.status, 200, signedIn.text)
        const cookies = cookiesOf(signedIn)
        assert.include(cookies.gatehouse_session!.attributes, "secure", "behind https, the cookies are Secure")
        const cookie = `gatehouse_session=${cookies.gatehouse_session!.value}`
        const ws = yield* openWs(`${server.wsUrl}/health`, {
          key: null,
          headers: { cookie, origin: "https://localhost" }
        })
        assert.isObject(JSON.parse(yield* ws.next()))
        const other = yield* login(server, "alice", "alice-password", { origin: "https://localhost:8443" })
        assert.strictEqual(other.status, 403, "another port is another origin")
      })
    )
  )
})

describe("the client's address behind a reverse proxy", () => {
  it.live("X-Forwarded-For names the client only when the peer is a trusted proxy", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const users = yield* configYaml
        const attempts = (server: TestServer, forwardedFor: string) =>
          Effect.forEach(
            Array.from({ length: 12 }, (_, i) => i),
            (i) =>
              Effect.map(
                login(server, `nobody-${forwardedFor}-${i}`, "wrong", { "x-forwarded-for": forwardedFor }),
                (reply) => reply.status
              )
          )
        // Trusted: each forwarded client has its own allowance (10 attempts in a burst).
        const proxied = yield* startTestServer({ configYaml: `${users}http: { trusted_proxies: [127.0.0.1] }\n` })
        const first = yield* attempts(proxied, "203.0.113.5")
        assert.deepStrictEqual(first.slice(10), [429, 429], "the forwarded client used its allowance")
        const other = yield* attempts(proxied, "198.51.100.7, 127.0.0.1")
        assert.strictEqual(other[0], 401, "another forwarded client (through a second trusted hop) is not limited")
        const alice = yield* signIn(proxied, "alice", "alice-password")
        assert.isString(alice.session)
        const sessions = yield* request(`${proxied.baseUrl}/sessions`, { key: proxied.apiKey })
        assert.strictEqual(sessions.json[0].address, "127.0.0.1", "no X-Forwarded-For: the proxy itself")
        // Not trusted: the header is the client's own word, and ignored.
        const direct = yield* serverWithUsers()
        const spoofed = yield* attempts(direct, "203.0.113.5")
        assert.deepStrictEqual(spoofed.slice(10), [429, 429])
        const again = yield* attempts(direct, "198.51.100.9")
        assert.strictEqual(again[0], 429, "a new X-Forwarded-For does not buy a new allowance")
      })
    )
  )
})

describe("session cookies", () => {
  it.live("a forged, revoked or expired cookie gets 401; logout ends the session and clears the cookies", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const whoami = (cookie: string) => request(`${server.baseUrl}/whoami`, asBrowser(cookie))
        const alice = yield* signIn(server, "alice", "alice-password")
        const forged = alice.session.replace(/.$/, (c) => (c === "A" ? "B" : "A"))
        assert.strictEqual((yield* whoami(`gatehouse_session=${forged}`)).status, 401)
        assert.strictEqual((yield* whoami("gatehouse_session=not-a-session")).status, 401)

        // Revoked by an admin (with the admin key), as `gatehouse sessions revoke` does.
        const sessions = yield* request(`${server.baseUrl}/sessions`, { key: server.apiKey })
        assert.strictEqual(sessions.json.length, 1)
        assert.notInclude(sessions.text, alice.session.split(".")[0]!, "no token in the listing")
        const revoked = yield* request(`${server.baseUrl}/sessions/${sessions.json[0].id}`, {
          method: "DELETE",
          key: server.apiKey
        })
        assert.strictEqual(revoked.status, 200)
        const afterRevoke = yield* whoami(alice.cookie)
        assert.strictEqual(afterRevoke.status, 401)
        assert.match(afterRevoke.json.error.message, /session expired or signed out/)

        // Expired: the store says so (as it will once session_ttl has passed).
        // (Not used before: a session that checked out is remembered as valid for up to 5 seconds.)
        const bob = yield* signIn(server, "vic", "vic-password")
        const db = new Database(path.join(server.dataDir, "gatehouse.db"))
        db.prepare("UPDATE sessions SET expires_at = ? WHERE revoked_at IS NULL").run(Date.now() - 1000)
        db.close()
        assert.strictEqual((yield* whoami(bob.cookie)).status, 401)

        const carol = yield* signIn(server, "alice", "alice-password")
        const navigation = yield* Effect.promise(() =>
          fetch(`${server.baseUrl}/auth/logout`, {
            redirect: "manual",
            headers: { cookie: carol.cookie, "x-csrf-token": carol.csrf }
          })
        )
        assert.strictEqual(navigation.status, 302)
        assert.strictEqual(navigation.headers.get("location"), "/login?signed_out=1")
        assert.isTrue(navigation.headers.getSetCookie().some((c) => /^gatehouse_session=;.*Max-Age=0/i.test(c)))
        assert.strictEqual((yield* whoami(carol.cookie)).status, 401)
        const dave = yield* signIn(server, "alice", "alice-password")
        const logout = yield* request(`${server.baseUrl}/auth/logout`, {
          ...asBrowser(dave.cookie, { "x-csrf-token": dave.csrf }),
          method: "POST"
        })
        assert.strictEqual(logout.status, 200)
        const cleared = cookiesOf(logout)
        assert.strictEqual(cleared.gatehouse_session!.value, "")
        assert.include(cleared.gatehouse_session!.attributes, "max-age=0")
        assert.deepStrictEqual(logout.json, { message: "signed out" })
        assert.strictEqual((yield* whoami(dave.cookie)).status, 401)
        // Each ending is one auth/logout event: the admin's revocation, then carol's and dave's sign-outs.
        const history = yield* request(`${server.baseUrl}/events?category=auth&limit=1000`, { key: server.apiKey })
        const logouts = history.json.filter((e: { action: string }) => e.action === "logout")
        assert.deepStrictEqual(
          logouts.map((e: { data: { by: string } }) => e.data.by),
          ["api-key:admin", "user:alice", "user:alice"]
        )
      })
    )
  )

  it.live("a cookie works behind a proxy's Basic authentication; a Bearer token sent with it decides alone", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const vic = yield* signIn(server, "vic", "vic-password")
        const whoami = (extra: Record<string, string>) =>
          request(`${server.baseUrl}/whoami`, asBrowser(vic.cookie, extra))
        // A reverse proxy that asks for a password of its own passes its Authorization header on.
        const behindProxy = yield* whoami({ authorization: "Basic dmljOnByb3h5LXBhc3N3b3Jk" })
        assert.strictEqual(behindProxy.status, 200, behindProxy.text)
        assert.deepInclude(behindProxy.json, { method: "session", subject: "user:vic" })
        // A key is the request's credential, the cookie then counts for nothing: a wrong one is refused.
        const withKey = yield* whoami({ authorization: `Bearer ${server.apiKey}` })
        assert.deepInclude(withKey.json, { method: "api_key", subject: "api-key:admin" })
        assert.strictEqual((yield* whoami({ authorization: "Bearer gh_wrong" })).status, 401)
        assert.strictEqual((yield* whoami({ authorization: "Bearer" })).status, 401)
      })
    )
  )

  it.live("unsafe requests with a cookie need the session's CSRF token; API-key requests do not", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const alice = yield* signIn(server, "alice", "alice-password")
        const missing = yield* writeRoutes(server, { cookie: alice.cookie })
        assert.strictEqual(missing.status, 403)
        assert.match(missing.json.error.message, /CSRF/)
        const other = yield* signIn(server, "alice", "alice-password")
        const wrong = yield* writeRoutes(server, { cookie: alice.cookie, "x-csrf-token": other.csrf })
        assert.strictEqual(wrong.status, 403, "another session's token does not match")
        const right = yield* writeRoutes(server, { cookie: alice.cookie, "x-csrf-token": alice.csrf })
        assert.strictEqual(right.status, 200, right.text)
        const byKey = yield* writeRoutes(server, {}, server.apiKey)
        assert.strictEqual(byKey.status, 200, byKey.text)
      })
    )
  )

  it.live("signing out with a cookie needs the session's CSRF token, by POST and by GET (no cross-site logout)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const whoami = (cookie: string) => request(`${server.baseUrl}/whoami`, asBrowser(cookie))
        const alice = yield* signIn(server, "alice", "alice-password")
        const other = yield* signIn(server, "alice", "alice-password")
        // The refusal every other unsafe cookie request gets (here a PUT without the token).
        const reference = yield* writeRoutes(server, { cookie: alice.cookie })
        assert.strictEqual(reference.status, 403)
        const refusals = [
          yield* request(`${server.baseUrl}/auth/logout`, { ...asBrowser(alice.cookie), method: "POST" }),
          yield* request(`${server.baseUrl}/auth/logout`, {
            ...asBrowser(alice.cookie, { "x-csrf-token": other.csrf }),
            method: "POST"
          }),
          yield* request(`${server.baseUrl}/auth/logout`, asBrowser(alice.cookie))
        ]
        for (const refused of refusals) {
          assert.strictEqual(refused.status, 403, refused.text)
          assert.deepStrictEqual(refused.json, reference.json)
          assert.deepStrictEqual(cookiesOf(refused), {}, "the cookies are kept")
        }
        // A browser's GET (asking for HTML) is asked to confirm instead (test/login/SignOut.test.ts): nothing ends.
        const asked = yield* request(`${server.baseUrl}/auth/logout`, asBrowser(alice.cookie, { accept: "text/html" }))
        assert.strictEqual(asked.status, 200, asked.text)
        assert.include(asked.text, "Sign out of Gatehouse?")
        assert.deepStrictEqual(cookiesOf(asked), {}, "the cookies are kept")
        assert.strictEqual((yield* whoami(alice.cookie)).status, 200, "still signed in")

        // With the token it signs out; without a (valid) session there is nothing to protect.
        const out = yield* request(`${server.baseUrl}/auth/logout`, {
          ...asBrowser(alice.cookie, { "x-csrf-token": alice.csrf }),
          method: "POST"
        })
        assert.strictEqual(out.status, 200, out.text)
        assert.strictEqual((yield* whoami(alice.cookie)).status, 401)
        const anonymous = yield* request(`${server.baseUrl}/auth/logout`, { key: null, method: "POST" })
        assert.strictEqual(anonymous.status, 200, anonymous.text)
        const garbage = yield* request(`${server.baseUrl}/auth/logout`, {
          ...asBrowser("gatehouse_session=not-a-session"),
          method: "POST"
        })
        assert.strictEqual(garbage.status, 200, garbage.text)
      })
    )
  )

  it.live("a signed-in admin manages API keys over HTTP; a viewer may not", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const create = (who: { cookie: string; csrf: string }, name: string) =>
          request(`${server.baseUrl}/apikeys`, {
            method: "POST",
            key: null,
            contentType: "application/json",
            body: JSON.stringify({ name, scopes: ["health:read"] }),
            headers: { cookie: who.cookie, "x-csrf-token": who.csrf }
          })
        const alice = yield* signIn(server, "alice", "alice-password")
        const created = yield* create(alice, "from-browser")
        assert.strictEqual(created.status, 201, created.text)
        assert.strictEqual((yield* request(`${server.baseUrl}/health`, { key: created.json.key })).status, 200)
        const events = yield* server.events.history({ category: "api_key" })
        assert.deepStrictEqual(events.at(-1)?.data, {
          name: "from-browser",
          prefix: created.json.api_key.prefix,
          scopes: ["health:read"],
          by: "user:alice"
        })
        const vic = yield* signIn(server, "vic", "vic-password")
        const refused = yield* create(vic, "viewer-key")
        assert.strictEqual(refused.status, 403)
        assert.match(refused.json.error.message, /"admin"/)
      })
    )
  )

  it.live("a WebSocket with a session cookie must come from this origin", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* serverWithUsers()
        const alice = yield* signIn(server, "alice", "alice-password")
        const url = `${server.wsUrl}/health`
        const noOrigin = yield* Effect.flip(openWs(url, { key: null, headers: { cookie: alice.cookie } }))
        assert.strictEqual(noOrigin.status, 403)
        const crossOrigin = yield* Effect.flip(
          openWs(url, { key: null, headers: { cookie: alice.cookie, origin: "http://127.0.0.1:1" } })
        )
        assert.strictEqual(crossOrigin.status, 403)
        assert.match(crossOrigin.body, /cross-origin WebSocket/)
        const same = yield* openWs(url, { key: null, headers: { cookie: alice.cookie, origin: server.origin } })
        assert.isObject(JSON.parse(yield* same.next()))
        const byKey = yield* openWs(url, { key: server.apiKey })
        assert.isObject(JSON.parse(yield* byKey.next()), "an API key needs no Origin")
      })
    )
  )

  it.live("a session survives a restart of the server", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const data = path.join(yield* tempDir("gatehouse-signin-restart-"), "data")
        // The same config both times: a password hashed again (another salt) is a changed password, which ends
        // the sessions signed in with the old one.
        const yaml = yield* configYaml
        const env = { GATEHOUSE_DATA_DIR: data }
        const first = yield* Effect.scoped(
          Effect.gen(function* () {
            const server = yield* startTestServer({ configYaml: yaml, env })
            return yield* signIn(server, "vic", "vic-password")
          })
        )
        const server = yield* startTestServer({ configYaml: yaml, env })
        const me = yield* request(`${server.baseUrl}/whoami`, asBrowser(first.cookie))
        assert.strictEqual(me.status, 200, me.text)
        assert.strictEqual(me.json.subject, "user:vic")
        const write = yield* writeRoutes(server, { cookie: first.cookie, "x-csrf-token": first.csrf })
        assert.strictEqual(write.status, 403, "a viewer still")
        assert.strictEqual(write.json.error.message.includes("files:write"), true, write.text)
      })
    )
  )

  it.live("a browser that cannot be sent on to the OpenID provider sees the sign-in page with the reason", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // A provider on a closed loopback port: discovery fails at the first sign-in.
        const server = yield* startTestServer({
          configYaml:
            'auth:\n  oidc: { issuer: "http://127.0.0.1:1/", client_id: gatehouse, client_secret: x, allowed_groups: [a] }\n'
        })
        const script = yield* request(`${server.baseUrl}/auth/login`, { key: null })
        assert.strictEqual(script.status, 502, script.text)
        assert.strictEqual(script.json.error.code, "bad_gateway")
        const page = yield* request(`${server.baseUrl}/auth/login?return_to=/x`, {
          key: null,
          headers: { accept: "text/html,application/xhtml+xml" }
        })
        assert.strictEqual(page.status, 502, page.text)
        assert.match(page.headers.get("content-type") ?? "", /^text\/html/)
        assert.include(page.text, `<p class="error" role="alert">${script.json.error.message}`)
      })
    )
  )
})
