import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { hashPassword } from "@gatehouse-edge/core"
import { Effect, type Scope } from "effect"
import type { Page } from "playwright-core"
import { launchChromium, launchChromiumWith, type TestBrowser } from "../support/Chromium.js"
import { requireTool } from "../support/e2e.js"
import { freePort } from "../support/FreePort.js"
import { type OidcProvider, type OidcUser, oidcConfigYaml, startOidcProvider } from "../support/OidcProvider.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/*
 * Signing in with a real browser: Debian's headless Chromium driven by playwright-core, against a real Gatehouse
 * (and for OIDC a real OpenID provider). Everything waits with Playwright's own waiting (navigation, selectors,
 * functions) under deadlines, never with sleeps.
 */

const { skip } = requireTool("chromium")

// What the functions run in the page (page.evaluate, waitForFunction) use of the DOM; the tests compile without
// the DOM library.
declare const document: {
  readonly cookie: string
  readonly body: { append(node: unknown): void }
  createElement(tag: "a"): { href: string; textContent: string | null }
  getElementById(id: string): { readonly textContent: string | null } | null
}

const alice = { name: "alice", password: "correct horse battery staple" }
const routeFile = "web:\n  host: 127.0.0.1\n  port: 1\n  healthcheck: { disable: true }\n"

/** Gatehouse with one local user (admin) and one route. */
const startLocalServer = Effect.gen(function* () {
  const hash = yield* hashPassword(alice.password)
  return yield* startTestServer({
    routeFiles: { "web.yml": routeFile },
    configYaml: ["auth:", "  users:", `    - { name: ${alice.name}, role: admin, password_hash: "${hash}" }`].join("\n")
  })
})

/** Another site on loopback (another port: same site for cookies, another origin): serves the given pages. */
const startOtherSite = (pages: Readonly<Record<string, string>>): Effect.Effect<string, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.callback<http.Server>((resume) => {
        const server = http.createServer((req, res) => {
          const html = pages[new URL(req.url ?? "/", "http://x").pathname]
          res.writeHead(html === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" })
          res.end(html ?? "not found")
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    ),
    (server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  )

const ada: OidcUser = { name: "ada", password: "ada-secret", groups: ["gatehouse-admins"] }

/** Gatehouse with OIDC only (no local users), against a fresh provider that knows ada (admin), and one route. */
const startOidcServer = Effect.gen(function* () {
  const port = yield* freePort
  const provider = yield* startOidcProvider({ rpOrigin: `http://127.0.0.1:${port}`, users: [ada] })
  const server = yield* startTestServer({
    port,
    routeFiles: { "web.yml": routeFile },
    configYaml: oidcConfigYaml(provider, "allowed_groups: [gatehouse-admins]", "roles: { admin: [gatehouse-admins] }")
  })
  return { server, provider }
})

const newPage = (browser: TestBrowser) => Effect.promise(() => browser.context.newPage())

/** Waits until the overview page shows who is signed in (it asks `/api/v1/whoami` with the cookie). */
const signedInAs = (page: Page, who: string) =>
  Effect.promise(() => page.locator("p", { hasText: `Signed in as ${who}` }).waitFor())

/** Opens `/`, is sent to the sign-in page, signs in as alice with the form (fields found by their labels). */
const signInWithForm = (page: Page, server: TestServer) =>
  Effect.promise(async () => {
    await page.goto(`${server.origin}/`)
    await page.waitForURL(`${server.origin}/login?return_to=%2F`)
    await page.getByLabel("User name").fill(alice.name)
    await page.getByLabel("Password").fill(alice.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(`${server.origin}/`)
  })

/** Opens `/`, is sent to the sign-in page and on to the provider, signs in there as ada and consents. */
const signInAtProvider = (page: Page, server: TestServer, provider: OidcProvider) =>
  Effect.andThen(
    Effect.promise(async () => {
      await page.goto(`${server.origin}/`)
      await page.waitForURL(`${server.origin}/login?return_to=%2F`)
      // No local users: no password form, only the way to the provider.
      assert.strictEqual(await page.getByLabel("User name").count(), 0)
      await page.getByRole("link", { name: "Sign in with your identity provider" }).click()
      await page.waitForURL((url) => url.origin === provider.issuer && url.pathname.startsWith("/interaction/"))
      await page.getByLabel("Username").fill(ada.name)
      await page.getByLabel("Password").fill(ada.password)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByRole("button", { name: "Allow" }).click()
      await page.waitForURL(`${server.origin}/`)
    }),
    signedInAs(page, "oidc:ada (admin)")
  )

/** `fetch` in the page (with its cookies): status and body. */
const fetchInPage = (
  page: Page,
  url: string,
  init: { readonly method?: string; readonly body?: string; readonly headers?: Record<string, string> } = {}
) =>
  Effect.promise(() =>
    page.evaluate(
      async ({ url, init }) => {
        const response = await fetch(url, { ...init, credentials: "same-origin" })
        return { status: response.status, text: await response.text() }
      },
      { url, init }
    )
  )

/** The page script's way to read the CSRF token: the `gatehouse_csrf` cookie (readable, unlike the session). */
const csrfOf = (page: Page) =>
  Effect.promise(() => page.evaluate(() => /(?:^|; )gatehouse_csrf=([^;]*)/.exec(document.cookie)?.[1] ?? ""))

/** The value of the browser's session cookie for the server. */
const sessionCookieOf = (browser: TestBrowser, server: TestServer) =>
  Effect.map(
    Effect.promise(() => browser.context.cookies(server.origin)),
    (cookies) => cookies.find((c) => c.name === "gatehouse_session")?.value
  )

/** Whether the server still takes this session cookie (`/api/v1/whoami` from outside the browser). */
const whoamiStatus = (server: TestServer, session: string) =>
  Effect.promise(() =>
    fetch(`${server.baseUrl}/whoami`, { headers: { cookie: `gatehouse_session=${session}` } }).then((r) => r.status)
  )

/**
 * Puts a plain link to `GET /api/v1/auth/logout` on the page (as any page, or a bookmark, may have it: no script
 * of Gatehouse's involved) and clicks it: the response the navigation got.
 */
const clickPlainLogoutLink = (page: Page, server: TestServer) =>
  Effect.promise(async () => {
    await page.evaluate(() => {
      const link = document.createElement("a")
      link.href = "/api/v1/auth/logout"
      link.textContent = "a plain sign-out link"
      document.body.append(link)
    })
    const response = page.waitForResponse(
      (r) => r.url() === `${server.baseUrl}/auth/logout` && r.request().method() === "GET"
    )
    await page.getByRole("link", { name: "a plain sign-out link" }).click()
    await page.getByRole("heading", { name: "Sign out of Gatehouse?" }).waitFor()
    return response
  })

// A route in YAML that `POST /route/validate` accepts, written so that an HTML form can send it: a text/plain form
// sends `name=value`, and the YAML comment swallows the `=`.
const validRouteLine = "probe: {host: 127.0.0.1, port: 8080, healthcheck: {disable: true}} #"

describe.skipIf(skip)("signing in with Chromium", () => {
  it.live(
    "a local user: / sends the browser to /login; the form signs in; the overview fills from the API with the cookie",
    () =>
      Effect.gen(function* () {
        const server = yield* startLocalServer
        const browser = yield* launchChromium
        const page = yield* newPage(browser)
        yield* signInWithForm(page, server)
        yield* signedInAs(page, "user:alice (admin)")
        // The routes table comes from GET /api/v1/route/list, called by the page with the session cookie.
        yield* Effect.promise(() => page.locator("#routes", { hasText: "1 routes" }).waitFor())
        assert.strictEqual(yield* Effect.promise(() => page.locator("#route-rows tr td").first().textContent()), "web")

        const routes = yield* fetchInPage(page, "/api/v1/route/list")
        assert.strictEqual(routes.status, 200, routes.text)
        assert.deepStrictEqual(
          JSON.parse(routes.text).map((r: { alias: string }) => r.alias),
          ["web"]
        )
        // The session cookie is HttpOnly: the page's script sees the CSRF token only.
        const visible = yield* Effect.promise(() => page.evaluate(() => document.cookie))
        assert.match(visible, /gatehouse_csrf=/)
        assert.notMatch(visible, /gatehouse_session/)
        const cookies = yield* Effect.promise(() => browser.context.cookies(server.origin))
        assert.deepInclude(
          cookies.map((c) => [c.name, c.httpOnly, c.sameSite]),
          ["gatehouse_session", true, "Lax"]
        )
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a form another site posts with the browser's cookie is refused for CSRF; the page's own request with X-CSRF-Token passes",
    () =>
      Effect.gen(function* () {
        const server = yield* startLocalServer
        const browser = yield* launchChromium
        const validate = `${server.baseUrl}/route/validate`
        // A form that posts itself as soon as the page loads: text/plain, which a form may send without any
        // CORS preflight, and which the endpoint accepts.
        const other = yield* startOtherSite({
          "/csrf": `<!doctype html><title>win a prize</title>
<form id="f" method="post" enctype="text/plain" action="${validate}">
<input type="hidden" name="${validRouteLine}" value="">
</form>
<script>document.getElementById("f").submit()</script>`
        })
        const page = yield* newPage(browser)
        yield* signInWithForm(page, server)
        yield* signedInAs(page, "user:alice")

        const refused = yield* Effect.promise(async () => {
          const response = page.waitForResponse((r) => r.url() === validate && r.request().method() === "POST")
          await page.goto(`${other}/csrf`)
          return response
        })
        const request = refused.request()
        assert.strictEqual(yield* Effect.promise(() => request.headerValue("origin")), other)
        // The cookie went along (127.0.0.1 on another port is the same site, SameSite=Lax lets it through)...
        assert.match((yield* Effect.promise(() => request.headerValue("cookie"))) ?? "", /gatehouse_session=/)
        // ... and the request was refused for the missing CSRF token (not for missing credentials: that is 401).
        assert.strictEqual(refused.status(), 403)
        const body = yield* Effect.promise(() => refused.json())
        assert.strictEqual(body.error.code, "permission_denied")
        assert.include(body.error.message, "CSRF")

        // The same request from Gatehouse's own page: refused without the header too, accepted with it.
        yield* Effect.promise(() => page.goto(`${server.origin}/`))
        const routeBody = `${validRouteLine}=\r\n`
        const withoutToken = yield* fetchInPage(page, validate, {
          method: "POST",
          body: routeBody,
          headers: { "content-type": "text/plain" }
        })
        assert.strictEqual(withoutToken.status, 403, withoutToken.text)
        const withToken = yield* fetchInPage(page, validate, {
          method: "POST",
          body: routeBody,
          headers: { "content-type": "text/plain", "x-csrf-token": yield* csrfOf(page) }
        })
        assert.strictEqual(withToken.status, 200, withToken.text)
        assert.include(withToken.text, "probe")
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a WebSocket another origin opens with the browser's cookie never opens; from Gatehouse's own page it streams health",
    () =>
      Effect.gen(function* () {
        const server = yield* startLocalServer
        const browser = yield* launchChromium
        const healthWs = `${server.wsUrl}/health`
        // Records what the socket did in #result: "open", "message", then "close <code>" (or "error").
        const probe = `<!doctype html><title>socket</title><output id="result"></output>
<script>
const seen = []
const done = (what) => { seen.push(what); document.getElementById("result").textContent = seen.join(" ") }
const ws = new WebSocket(${JSON.stringify(healthWs)})
ws.onopen = () => done("open")
ws.onmessage = () => { done("message"); ws.close(1000) }
ws.onerror = () => done("error")
ws.onclose = (e) => done("close " + e.code)
</script>`
        const other = yield* startOtherSite({ "/ws": probe })
        const page = yield* newPage(browser)
        yield* signInWithForm(page, server)
        yield* signedInAs(page, "user:alice")

        // From the other origin: the handshake is answered with 403 (the cookie is valid: without it, 401).
        // Playwright sees the handshake fail (listeners attached as the socket appears, before it can fail).
        const handshake = new Promise<string>((resolve) =>
          page.once("websocket", (ws) => {
            ws.on("socketerror", resolve)
            ws.on("close", () => resolve("closed without a handshake error"))
          })
        )
        yield* Effect.promise(() => page.goto(`${other}/ws`))
        yield* Effect.promise(() =>
          page.waitForFunction(() => /close/.test(document.getElementById("result")?.textContent ?? ""))
        )
        const crossOrigin = yield* Effect.promise(() => page.locator("#result").textContent())
        assert.notInclude(crossOrigin, "open", `the socket opened: ${crossOrigin}`)
        assert.include(crossOrigin, "close 1006")
        const refusal = yield* Effect.promise(() => handshake)
        assert.match(refusal, /response code: 403\b/, refusal)

        // From Gatehouse's own page: the same socket opens and receives the health map.
        yield* Effect.promise(() => page.goto(`${server.origin}/`))
        const sameOrigin = yield* Effect.promise(() =>
          page.evaluate(
            (url) =>
              new Promise<string>((resolve) => {
                const ws = new WebSocket(url)
                ws.onmessage = (event) => {
                  resolve(`message ${String(event.data)}`)
                  ws.close(1000)
                }
                ws.onclose = (event) => resolve(`close ${event.code}`)
              }),
            healthWs
          )
        )
        assert.match(sameOrigin, /^message \{/, sameOrigin)
        assert.isObject(JSON.parse(sameOrigin.slice("message ".length)))
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "Sign out on the overview ends the session: back on /login, and /api/v1/whoami is 401",
    () =>
      Effect.gen(function* () {
        const server = yield* startLocalServer
        const browser = yield* launchChromium
        const page = yield* newPage(browser)
        yield* signInWithForm(page, server)
        yield* signedInAs(page, "user:alice")
        const session = (yield* Effect.promise(() => browser.context.cookies(server.origin))).find(
          (c) => c.name === "gatehouse_session"
        )
        assert.isDefined(session)

        yield* Effect.promise(() => page.getByRole("button", { name: "Sign out" }).click())
        yield* Effect.promise(() => page.waitForURL((url) => url.pathname === "/login"))
        yield* Effect.promise(() => page.getByRole("status").filter({ hasText: "You are signed out" }).waitFor())
        const whoami = yield* fetchInPage(page, "/api/v1/whoami")
        assert.strictEqual(whoami.status, 401, whoami.text)
        // Not only forgotten by the browser: the old cookie is refused by the server.
        const replay = yield* Effect.promise(() =>
          fetch(`${server.baseUrl}/whoami`, { headers: { cookie: `gatehouse_session=${session!.value}` } })
        )
        assert.strictEqual(replay.status, 401)
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a plain link to /api/v1/auth/logout asks to confirm (200, not a JSON 403): Cancel keeps the session, Sign out ends it",
    () =>
      Effect.gen(function* () {
        const server = yield* startLocalServer
        const browser = yield* launchChromium
        const page = yield* newPage(browser)
        yield* signInWithForm(page, server)
        yield* signedInAs(page, "user:alice")
        const session = yield* sessionCookieOf(browser, server)
        assert.isDefined(session)

        const asked = yield* clickPlainLogoutLink(page, server)
        assert.strictEqual(asked.status(), 200)
        assert.match((yield* Effect.promise(() => asked.headerValue("content-type"))) ?? "", /^text\/html/)
        yield* Effect.promise(async () => {
          await page.getByRole("link", { name: "Cancel" }).click()
          await page.waitForURL(`${server.origin}/`)
        })
        yield* signedInAs(page, "user:alice")
        assert.strictEqual(yield* whoamiStatus(server, session!), 200, "asking did not sign out")

        yield* clickPlainLogoutLink(page, server)
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.waitForURL(`${server.origin}/login?signed_out=1`)
          await page.getByRole("status").filter({ hasText: "You are signed out" }).waitFor()
        })
        assert.isUndefined(yield* sessionCookieOf(browser, server), "the browser dropped the cookie")
        assert.strictEqual(yield* whoamiStatus(server, session!), 401, "the server ended the session")
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "without JavaScript, the overview's Sign out button leads to the confirmation page, whose form signs out",
    () =>
      Effect.gen(function* () {
        const server = yield* startLocalServer
        const browser = yield* launchChromiumWith({ javaScriptEnabled: false })
        const page = yield* newPage(browser)
        // Without scripts the overview cannot send the browser to /login: it goes there itself.
        yield* Effect.promise(async () => {
          await page.goto(`${server.origin}/login`)
          await page.getByLabel("User name").fill(alice.name)
          await page.getByLabel("Password").fill(alice.password)
          await page.getByRole("button", { name: "Sign in" }).click()
          await page.waitForURL(`${server.origin}/`)
        })
        const session = yield* sessionCookieOf(browser, server)
        assert.isDefined(session)
        assert.strictEqual(yield* whoamiStatus(server, session!), 200)

        // The overview's form (a GET without the header: no script adds it) lands on the confirmation page.
        const asked = yield* Effect.promise(async () => {
          const response = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/auth/logout")
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.getByRole("heading", { name: "Sign out of Gatehouse?" }).waitFor()
          return response
        })
        assert.strictEqual(asked.status(), 200)
        assert.strictEqual(yield* whoamiStatus(server, session!), 200, "asking did not sign out")
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.waitForURL(`${server.origin}/login?signed_out=1`)
          await page.getByRole("status").filter({ hasText: "You are signed out" }).waitFor()
        })
        assert.isUndefined(yield* sessionCookieOf(browser, server))
        assert.strictEqual(yield* whoamiStatus(server, session!), 401)
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "OIDC only: the sign-in page sends the browser to the provider; its sign-in and consent bring it back signed in; Sign out signs out there too",
    () =>
      Effect.gen(function* () {
        const { server, provider } = yield* startOidcServer
        const browser = yield* launchChromium
        const page = yield* newPage(browser)
        yield* signInAtProvider(page, server, provider)
        yield* Effect.promise(() => page.locator("#routes", { hasText: "1 routes" }).waitFor())
        const me = JSON.parse((yield* fetchInPage(page, "/api/v1/whoami")).text)
        assert.deepInclude(me, { method: "oidc", subject: "oidc:ada" })

        // Sign out ends the provider's session too: its confirmation page, then back to Gatehouse's sign-in page.
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.waitForURL((url) => url.origin === provider.issuer)
          await page.getByRole("button", { name: "Yes, sign me out" }).click()
          await page.waitForURL((url) => url.origin === server.origin && url.pathname === "/login")
        })
        assert.strictEqual((yield* fetchInPage(page, "/api/v1/whoami")).status, 401)
        assert.deepStrictEqual(provider.serverErrors, [])
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "OIDC: a plain sign-out link's confirmation page signs out, then goes on to the provider's end-session page",
    () =>
      Effect.gen(function* () {
        const { server, provider } = yield* startOidcServer
        const browser = yield* launchChromium
        const page = yield* newPage(browser)
        yield* signInAtProvider(page, server, provider)
        const session = yield* sessionCookieOf(browser, server)
        assert.isDefined(session)

        yield* clickPlainLogoutLink(page, server)
        // The form's answer is a redirect to another origin: the page's CSP must let the form go there.
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.waitForURL((url) => url.origin === provider.issuer)
        })
        assert.strictEqual(yield* whoamiStatus(server, session!), 401, "signed out of Gatehouse on the way")
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Yes, sign me out" }).click()
          await page.waitForURL((url) => url.origin === server.origin && url.pathname === "/login")
        })
        assert.isUndefined(yield* sessionCookieOf(browser, server))
        assert.deepStrictEqual(provider.serverErrors, [])
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )
})
