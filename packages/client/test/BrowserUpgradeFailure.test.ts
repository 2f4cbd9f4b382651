import { assert, describe, it } from "@effect/vitest"
import { GatehouseClient, Unauthenticated } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { HttpClientError } from "effect/http"
import { WebSocket } from "ws"
import { type Refusal, startFakeServer } from "./support/FakeServer.js"
import { failureOf } from "./support/StreamFailure.js"

// In a browser page a refused upgrade shows no response, so the client asks the same URL again as a plain GET to
// learn why: never for an endpoint whose GET acts, and an answer that is no refusal explains nothing.

/** A `WebSocket` with the browser's interface (`ws` has it), which only dispatches an error no one listens to. */
class PageWebSocket extends WebSocket {
  constructor(url: string) {
    super(url)
    this.on("error", () => {})
  }
}

/** This test as a page: a `document` and the page's `WebSocket`. */
const asPage = Effect.acquireRelease(
  Effect.sync(() => {
    const globals = globalThis as { document?: unknown; WebSocket?: unknown }
    const saved = { document: globals.document, WebSocket: globals.WebSocket }
    globals.document = { cookie: "gatehouse_csrf=tok" }
    globals.WebSocket = PageWebSocket
    return { globals, saved }
  }),
  ({ globals, saved }) =>
    Effect.sync(() => {
      globals.document = saved.document
      globals.WebSocket = saved.WebSocket
    })
)

// A signed-in page of the server: no key, its cookie authenticates.
const pageClientOf = (origin: string) =>
  Effect.service(GatehouseClient).pipe(Effect.provide(GatehouseClient.layer({ baseUrl: origin })))

const forbidden: Refusal = {
  status: 403,
  body: JSON.stringify({ error: { code: "permission_denied", message: "certs:write needed" } })
}

const transportReasonOf = (error: unknown) => {
  assert.isTrue(HttpClientError.isHttpClientError(error), String(error))
  const reason = (error as HttpClientError.HttpClientError).reason
  assert.instanceOf(reason, HttpClientError.TransportError)
  return reason as HttpClientError.TransportError
}

describe("a browser page whose upgrade failed", () => {
  it.live("does not GET the renewal to learn why (that GET would renew): a TransportError", () =>
    Effect.gen(function* () {
      yield* asPage
      const server = yield* startFakeServer({ refuse: () => forbidden, answer: () => ({ status: 200, body: "{}" }) })
      const client = yield* pageClientOf(server.origin)
      const renewal = transportReasonOf(yield* failureOf(client.certs.renewWithProgress()))
      assert.include(renewal.message, "the WebSocket upgrade failed")
      assert.deepStrictEqual(server.plainRequests, [])
      // A stream whose GET only reads is asked again: what the page would have sent is seen here.
      yield* failureOf(client.health.watch())
      assert.deepStrictEqual(server.plainRequests, ["GET /api/v1/health"])
    }).pipe(Effect.scoped)
  )

  it.live("a GET answered with a refusal is read as one: the endpoint's typed error", () =>
    Effect.gen(function* () {
      yield* asPage
      const server = yield* startFakeServer({
        refuse: () => ({ status: 401, body: "" }),
        answer: () => ({
          status: 401,
          body: JSON.stringify({ error: { code: "unauthenticated", message: "signed out" } })
        })
      })
      const client = yield* pageClientOf(server.origin)
      assert.instanceOf(yield* failureOf(client.health.watch()), Unauthenticated)
    }).pipe(Effect.scoped)
  )

  it.live("a GET answered 200 explains nothing (a proxy that cannot carry WebSockets): a TransportError", () =>
    Effect.gen(function* () {
      yield* asPage
      const server = yield* startFakeServer({ refuse: () => forbidden, answer: () => ({ status: 200, body: "{}" }) })
      const client = yield* pageClientOf(server.origin)
      const reason = transportReasonOf(yield* failureOf(client.health.watch()))
      assert.include(reason.message, "a plain GET was answered 200")
    }).pipe(Effect.scoped)
  )

  it.live("a URL the page's WebSocket refuses at once (a base URL without a scheme) is a TransportError", () =>
    Effect.gen(function* () {
      yield* asPage
      const server = yield* startFakeServer()
      const client = yield* pageClientOf(server.origin.replace("http://127.0.0.1", "localhost"))
      const reason = transportReasonOf(yield* failureOf(client.health.watch()))
      assert.include(String(reason.cause), "protocol")
    }).pipe(Effect.scoped)
  )
})
