import { assert, describe, it } from "@effect/vitest"
import { hashPassword } from "@gatehouse-edge/core"
import { CsrfRefusedMessage } from "@gatehouse-edge/transport-http/api"
import { Effect } from "effect"
import { type AgentReply, CookieAgent, formOf } from "../support/CookieAgent.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/*
 * Signing out from a browser without JavaScript, driven with fetch and a cookie jar against a real server: a plain
 * link to `GET /api/v1/auth/logout` carries the session cookie but cannot carry the `X-CSRF-Token` header, so the
 * browser is asked to confirm on a page whose form posts the token; scripts keep the header-or-403 contract.
 */

const password = "alice-password"

/** What a browser's navigation asks for (Chromium's `Accept` of a link). */
const navigation = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" }

const startServer = Effect.gen(function* () {
  const hash = yield* hashPassword(password)
  return yield* startTestServer({ configYaml: `auth:\n  users:\n    - { name: alice, password_hash: "${hash}" }\n` })
})

/** A browser signed in as alice (with the JSON login, as the page's script or the client does). */
const signedIn = (server: TestServer) =>
  Effect.gen(function* () {
    const browser = new CookieAgent()
    const reply = yield* browser.request(`${server.baseUrl}/auth/login`, {
      body: JSON.stringify({ username: "alice", password }),
      headers: { "content-type": "application/json" }
    })
    assert.strictEqual(reply.status, 200, reply.text)
    return {
      browser,
      session: browser.cookie("gatehouse_session", server.origin)!,
      csrf: browser.cookie("gatehouse_csrf", server.origin)!
    }
  })

/** `GET /whoami` with exactly this session cookie. */
const whoami = (server: TestServer, session: string) =>
  new CookieAgent().request(`${server.baseUrl}/whoami`, { headers: { cookie: `gatehouse_session=${session}` } })

/** Whether a reply removes the session cookie (`Max-Age=0`). */
const clearsSession = (reply: AgentReply) =>
  reply.setCookies.some((line) => /^gatehouse_session=;/.test(line) && /max-age=0/i.test(line))

/** The headers every page of the server sends: not cached, never framed, scripts and forms from itself only. */
const assertPageHeaders = (reply: AgentReply) => {
  assert.match(reply.headers.get("content-type") ?? "", /^text\/html/)
  assert.strictEqual(reply.headers.get("cache-control"), "no-store")
  assert.strictEqual(reply.headers.get("x-frame-options"), "DENY")
  assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff")
  const csp = reply.headers.get("content-security-policy") ?? ""
  assert.include(csp, "frame-ancestors 'none'")
  assert.include(csp, "default-src 'none'")
  assert.include(csp, "form-action 'self';", "forms lead to this server only (no OpenID provider here)")
}

describe("signing out from a browser without JavaScript", () => {
  it.live(
    "a plain link gets a confirmation page; its form signs out: 303 to /login, cookies cleared, session dead",
    () =>
      Effect.gen(function* () {
        const server = yield* startServer
        const { browser, session, csrf } = yield* signedIn(server)

        const page = yield* browser.request(`${server.baseUrl}/auth/logout`, { headers: navigation })
        assert.strictEqual(page.status, 200, page.text)
        assertPageHeaders(page)
        assert.include(page.text, "<h1>Sign out of Gatehouse?</h1>")
        assert.match(page.text, /<form method="post" action="\/api\/v1\/auth\/logout">/)
        assert.match(page.text, /<button type="submit"[^>]*>Sign out<\/button>/)
        assert.match(page.text, /<a href="\/">Cancel<\/a>/)
        const form = formOf(page)
        assert.strictEqual(form.action, `${server.baseUrl}/auth/logout`)
        assert.deepStrictEqual([...form.fields.keys()], ["csrf_token"])
        assert.strictEqual(form.fields.get("csrf_token"), csrf, "the form carries the session's CSRF token")
        assert.deepStrictEqual(page.setCookies, [], "asking is not signing out: the cookies are kept")
        assert.strictEqual((yield* whoami(server, session)).status, 200, "still signed in")

        const out = yield* browser.request(form.action, { form: form.fields, headers: navigation })
        assert.strictEqual(out.status, 303, out.text)
        assert.strictEqual(out.location, `${server.origin}/login?signed_out=1`)
        assert.isTrue(clearsSession(out), out.setCookies.join("\n"))
        assert.isUndefined(browser.cookie("gatehouse_session", server.origin))
        assert.isUndefined(browser.cookie("gatehouse_csrf", server.origin))
        const after = yield* whoami(server, session)
        assert.strictEqual(after.status, 401, after.text)
        // Where the redirect leads: the sign-in page saying so.
        const landing = yield* browser.follow(out.location!)
        assert.strictEqual(landing.status, 200)
        assert.include(landing.text, "You are signed out.")
      }).pipe(Effect.scoped)
  )

  it.live("a form with a wrong or no token is refused with the page (403, not JSON); the session goes on", () =>
    Effect.gen(function* () {
      const server = yield* startServer
      const alice = yield* signedIn(server)
      const other = yield* signedIn(server)
      const logout = `${server.baseUrl}/auth/logout`
      const attempts = [
        new URLSearchParams({ csrf_token: other.csrf }),
        new URLSearchParams({ csrf_token: `${alice.csrf.slice(0, -1)}x` }),
        new URLSearchParams({ csrf_token: "" }),
        new URLSearchParams()
      ]
      for (const fields of attempts) {
        const refused = yield* alice.browser.request(logout, { form: fields, headers: navigation })
        assert.strictEqual(refused.status, 403, `${fields}: ${refused.text}`)
        assertPageHeaders(refused)
        assert.isUndefined(refused.json, "a page, not a JSON error")
        assert.match(refused.text, /<p class="error" role="alert">You are still signed in/)
        assert.deepStrictEqual(refused.setCookies, [], "the cookies are kept")
        // The page offers the form again, with the token of the session this browser holds.
        assert.strictEqual(formOf(refused).fields.get("csrf_token"), alice.csrf)
      }
      assert.strictEqual((yield* whoami(server, alice.session)).status, 200, "still signed in")
      assert.strictEqual((yield* whoami(server, other.session)).status, 200, "the other session too")

      // The form on the refusal page works.
      const retry = formOf(yield* alice.browser.request(logout, { form: attempts[0]!, headers: navigation }))
      const out = yield* alice.browser.request(retry.action, { form: retry.fields })
      assert.strictEqual(out.status, 303, out.text)
      assert.strictEqual((yield* whoami(server, alice.session)).status, 401)
      assert.strictEqual((yield* whoami(server, other.session)).status, 200, "only this browser's session ended")
    }).pipe(Effect.scoped)
  )

  it.live("scripts keep the header-or-403 contract; a GET with the header or without a session still redirects", () =>
    Effect.gen(function* () {
      const server = yield* startServer
      const logout = `${server.baseUrl}/auth/logout`
      const alice = yield* signedIn(server)

      // A script (not asking for HTML) without the header: the JSON refusal, by GET and by POST; nothing cleared.
      for (const init of [{}, { headers: { accept: "application/json" } }, { method: "POST" }]) {
        const refused = yield* alice.browser.request(logout, init)
        assert.strictEqual(refused.status, 403, refused.text)
        assert.deepStrictEqual(refused.json, { error: { code: "permission_denied", message: CsrfRefusedMessage } })
        assert.deepStrictEqual(refused.setCookies, [])
      }
      // A browser GET with a wrong header is asked too; a script with a wrong header is refused.
      const wrong = { "x-csrf-token": `${alice.csrf.slice(0, -1)}x` }
      const asked = yield* alice.browser.request(logout, { headers: { ...navigation, ...wrong } })
      assert.strictEqual(asked.status, 200, asked.text)
      assert.strictEqual(formOf(asked).fields.get("csrf_token"), alice.csrf)
      assert.strictEqual((yield* alice.browser.request(logout, { headers: wrong })).status, 403)
      assert.strictEqual((yield* whoami(server, alice.session)).status, 200, "still signed in")

      // The token as a form field is for forms: a JSON body does not carry it.
      const json = yield* alice.browser.request(logout, {
        body: JSON.stringify({ csrf_token: alice.csrf }),
        headers: { "content-type": "application/json" }
      })
      assert.strictEqual(json.status, 403, json.text)
      // Nor does a text body (what `fetch` sends for `body: ""`): without the header it is refused like any other.
      const text = yield* alice.browser.request(logout, {
        body: `csrf_token=${alice.csrf}`,
        headers: { "content-type": "text/plain;charset=UTF-8" }
      })
      assert.strictEqual(text.status, 403, text.text)

      // A JSON post with the header gets the JSON answer, with or without a body; a text body is ignored too.
      const carol = yield* signedIn(server)
      const withText = yield* carol.browser.request(logout, {
        body: "",
        headers: { "content-type": "text/plain;charset=UTF-8", "x-csrf-token": carol.csrf }
      })
      assert.strictEqual(withText.status, 200, withText.text)
      assert.deepStrictEqual(withText.json, { message: "signed out" })
      assert.strictEqual((yield* whoami(server, carol.session)).status, 401)
      const withBody = yield* alice.browser.request(logout, {
        body: "{}",
        headers: { "content-type": "application/json", "x-csrf-token": alice.csrf }
      })
      assert.strictEqual(withBody.status, 200, withBody.text)
      assert.deepStrictEqual(withBody.json, { message: "signed out" })
      assert.isTrue(clearsSession(withBody))
      assert.strictEqual((yield* whoami(server, alice.session)).status, 401)

      // A browser's GET with the header signs out at once (302), as before.
      const bob = yield* signedIn(server)
      const direct = yield* bob.browser.request(logout, { headers: { ...navigation, "x-csrf-token": bob.csrf } })
      assert.strictEqual(direct.status, 302, direct.text)
      assert.strictEqual(direct.location, `${server.origin}/login?signed_out=1`)
      assert.isTrue(clearsSession(direct))
      assert.strictEqual((yield* whoami(server, bob.session)).status, 401)

      // With a cookie this server did not sign, there is nothing to confirm: redirected, the cookie cleared.
      // Without any cookie there is nothing to clear either: no Set-Cookie. Another site's form post arrives
      // like that (the cookies are SameSite=Lax), and clearing would sign its visitor out of this server.
      for (const cookie of [undefined, "gatehouse_session=not-a-session"]) {
        const headers = cookie === undefined ? navigation : { ...navigation, cookie }
        const reply = yield* new CookieAgent().request(logout, { headers })
        assert.strictEqual(reply.status, 302, `${cookie}: ${reply.text}`)
        assert.strictEqual(reply.location, `${server.origin}/login?signed_out=1`)
        const posted = yield* new CookieAgent().request(logout, { form: new URLSearchParams(), headers })
        assert.strictEqual(posted.status, 303, `${cookie}: ${posted.text}`)
        assert.strictEqual(posted.location, `${server.origin}/login?signed_out=1`)
        for (const answer of [reply, posted]) {
          if (cookie === undefined) assert.deepStrictEqual(answer.setCookies, [], "nothing sent, nothing cleared")
          else assert.isTrue(clearsSession(answer), answer.setCookies.join("\n"))
        }
      }
      const script = yield* new CookieAgent().request(logout, { method: "POST" })
      assert.strictEqual(script.status, 200, script.text)
      assert.deepStrictEqual(script.setCookies, [])
    }).pipe(Effect.scoped)
  )

  it.live(
    "a browser whose session already ended (signed out elsewhere) is not asked: signed out, cookies cleared",
    () =>
      Effect.gen(function* () {
        const server = yield* startServer
        const logout = `${server.baseUrl}/auth/logout`
        // Two browsers whose sessions end elsewhere: signed out by a script with the same cookie and its token.
        const ended = [yield* signedIn(server), yield* signedIn(server)]
        for (const b of ended) {
          const out = yield* new CookieAgent().request(logout, {
            method: "POST",
            headers: { cookie: `gatehouse_session=${b.session}`, "x-csrf-token": b.csrf }
          })
          assert.strictEqual(out.status, 200, out.text)
          assert.strictEqual((yield* whoami(server, b.session)).status, 401)
        }
        const [first, second] = ended as [(typeof ended)[0], (typeof ended)[0]]

        // The link: no confirmation page for a session that is gone, the browser's cookies are cleared.
        const link = yield* first.browser.request(logout, { headers: navigation })
        assert.strictEqual(link.status, 302, link.text)
        assert.strictEqual(link.location, `${server.origin}/login?signed_out=1`)
        assert.isTrue(clearsSession(link), link.setCookies.join("\n"))

        // A confirmation page left open while the session ended: its form signs out, it does not claim
        // "You are still signed in".
        const form = yield* second.browser.request(logout, {
          form: new URLSearchParams({ csrf_token: "from-an-old-page" }),
          headers: navigation
        })
        assert.strictEqual(form.status, 303, form.text)
        assert.isTrue(clearsSession(form))
      }).pipe(Effect.scoped)
  )
})
