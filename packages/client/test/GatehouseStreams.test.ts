import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { RouteValidationMessage } from "@gatehouse-edge/client"
import { GatehouseApi } from "@gatehouse-edge/contract/api"
import type { RouteValidationDone, RouteValidationFrame } from "@gatehouse-edge/core/domain"
import { Deferred, Effect, Exit, Fiber, Scope, Stream } from "effect"
import { HttpApiClient } from "effect/http-api"
import { startTestServer } from "../../../test/support/TestServer.js"
import { openWebSocket } from "../src/WebSocketConnection.js"
import { clientFor, routeFile } from "./support/Clients.js"
import { eventually, startTcpProxy } from "./support/TcpProxy.js"

const aliases = (list: ReadonlyArray<{ readonly alias: string }>) => list.map((r) => r.alias).sort()

describe("health.watch", () => {
  it.live("emits the current HealthMap first", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const [first] = yield* client.health.watch().pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(Object.keys(first!), ["app"])
      assert.include(["starting", "unhealthy", "unknown"], first!.app!.status)
    }).pipe(Effect.scoped)
  )

  it.live("ends with 1001 (WebSocketClosed) when the server shuts down", () =>
    Effect.gen(function* () {
      const serverScope = yield* Scope.make()
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } }).pipe(
        Scope.provide(serverScope)
      )
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const firstFrame = yield* Deferred.make<void>()
      const fiber = yield* client.health.watch().pipe(
        Stream.tap(() => Deferred.succeed(firstFrame, undefined)),
        Stream.runDrain,
        Effect.forkChild
      )
      yield* Deferred.await(firstFrame)
      yield* Scope.close(serverScope, Exit.void)
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
      assert.strictEqual(error?._tag === "Fail" ? (error.error as { _tag: string })._tag : undefined, "WebSocketClosed")
      assert.strictEqual(error?._tag === "Fail" ? (error.error as { code: number }).code : undefined, 1001)
    }).pipe(Effect.scoped)
  )
})

describe("routes.watch", () => {
  it.live("emits the list, then the whole list again when a route file changes", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const lists = yield* client.routes.watch().pipe(
        Stream.tap((list) =>
          Effect.sync(() => {
            if (!list.some((r) => r.alias === "web"))
              fs.writeFileSync(path.join(server.routesDir, "web.yml"), routeFile("web"))
          })
        ),
        Stream.takeUntil((list) => list.some((r) => r.alias === "web")),
        Stream.runCollect
      )
      assert.deepStrictEqual(aliases(lists[0]!), ["app"])
      const last = lists[lists.length - 1]!
      assert.deepStrictEqual(aliases(last), ["app", "web"])
      assert.strictEqual(last.find((r) => r.alias === "web")?.provider, "file:web.yml")
    }).pipe(Effect.scoped)
  )
})

describe("events.watch", () => {
  it.live("emits the matching history, then live events", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      // A first change before anyone watches; its event is history by the time the stream opens (or arrives live).
      fs.writeFileSync(path.join(server.routesDir, "one.yml"), routeFile("one"))
      const added = (data: Record<string, unknown>) => (data.added as ReadonlyArray<string> | undefined) ?? []
      let wroteSecond = false
      const events = yield* client.events.watch({ category: "config" }).pipe(
        Stream.tap((event) =>
          Effect.sync(() => {
            if (!wroteSecond && added(event.data).includes("one")) {
              wroteSecond = true
              fs.writeFileSync(path.join(server.routesDir, "two.yml"), routeFile("two"))
            }
          })
        ),
        Stream.takeUntil((event) => added(event.data).includes("two")),
        Stream.runCollect
      )
      assert.isTrue(events.every((e) => e.category === "config"))
      const reloads = events.filter((e) => e.action === "reload").map((e) => added(e.data))
      assert.deepStrictEqual(reloads, [["one"], ["two"]])
      assert.isTrue(events[0]!.id < events[events.length - 1]!.id)
    }).pipe(Effect.scoped)
  )

  it.live("a bad query fails before connecting, with the SchemaError the HTTP call gives", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const viaStream = yield* Effect.flip(client.events.watch({ limit: 0 }).pipe(Stream.runDrain))
      const viaHttp = yield* Effect.flip(client.events.list({ query: { limit: 0 } }))
      assert.strictEqual(viaStream._tag, "SchemaError")
      assert.strictEqual(viaHttp._tag, "SchemaError")
      assert.strictEqual(viaStream.message, viaHttp.message)
    }).pipe(Effect.scoped)
  )
})

describe("routes.validateStream", () => {
  const twoRoutes = "a:\n  port: 80\nb:\n  port: 999999\n"

  it.live("answers each document with one frame per route, then done; ends by itself", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const frames = yield* client.routes.validateStream(Stream.make(twoRoutes, "x: [")).pipe(Stream.runCollect)
      assert.deepStrictEqual(
        frames.map((f) => ("done" in f ? "done" : f.alias)),
        ["a", "b", "done", "done"]
      )
      const [a, b] = frames.filter((f): f is RouteValidationFrame => !("done" in f))
      const [done, yamlDone] = frames.filter((f): f is RouteValidationDone => "done" in f)
      assert.strictEqual(a?.valid, true)
      assert.strictEqual(a?.route?.port?.target, 80)
      assert.strictEqual(b?.valid, false)
      assert.deepStrictEqual(b?.errors?.[0]?.path, ["b", "port"])
      assert.strictEqual(b?.errors?.[0]?.line, 4)
      assert.deepStrictEqual(done, { done: true, valid: 1, invalid: 1 })
      assert.deepInclude(yamlDone, { done: true, valid: 0, invalid: 0 })
      assert.strictEqual(yamlDone?.errors?.[0]?.line, 1)
    }).pipe(Effect.scoped)
  )

  it.live("ends when the input ends after the last answer, and at once for no documents", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const answered = yield* Deferred.make<void>()
      // The input only ends once the first document has been answered completely.
      const documents = Stream.concat(Stream.make(twoRoutes), Stream.fromEffectDrain(Deferred.await(answered)))
      const frames = yield* client.routes.validateStream(documents).pipe(
        Stream.tap((frame: RouteValidationMessage) =>
          "done" in frame ? Deferred.succeed(answered, undefined) : Effect.void
        ),
        Stream.runCollect
      )
      assert.strictEqual(frames.length, 3)
      const none = yield* client.routes.validateStream(Stream.empty).pipe(Stream.runCollect)
      assert.strictEqual(none.length, 0)
    }).pipe(Effect.scoped)
  )
})

describe("refused upgrades fail with the typed errors of the HTTP endpoints", () => {
  it.live("a bad API key: Unauthenticated on every stream", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, "gh_00000000_wrong")
      const errors = yield* Effect.all([
        Effect.flip(Stream.runDrain(client.health.watch())),
        Effect.flip(Stream.runDrain(client.events.watch())),
        Effect.flip(Stream.runDrain(client.routes.watch())),
        Effect.flip(Stream.runDrain(client.routes.validateStream(Stream.make("a: {}"))))
      ])
      for (const error of errors) {
        assert.strictEqual(error._tag, "Unauthenticated")
        assert.strictEqual(error.message, "missing or invalid API key")
      }
    }).pipe(Effect.scoped)
  )

  it.live("a query the server rejects: InvalidArgument with the issues", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      // Past the client's own check: the raw URL, decoded like the HTTP call of GET /events.
      const error = yield* Effect.flip(
        openWebSocket({
          url: `${server.baseUrl}/events?limit=0`,
          headers: { authorization: `Bearer ${server.apiKey}` },
          refused: HttpApiClient.decodeResponse(GatehouseApi, { group: "events", endpoint: "list" })
        })
      )
      assert.strictEqual(error._tag, "InvalidArgument")
      if (error._tag !== "InvalidArgument") return
      assert.deepStrictEqual(error.issues[0]?.path, ["query", "limit"])
    }).pipe(Effect.scoped)
  )

  it.live("nothing listening: HttpClientError (TransportError), as for HTTP calls", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const proxyScope = yield* Scope.make()
      const proxy = yield* startTcpProxy(1).pipe(Scope.provide(proxyScope))
      yield* Scope.close(proxyScope, Exit.void)
      const client = yield* clientFor(proxy.origin, server.apiKey)
      const error = yield* Effect.flip(Stream.runDrain(client.health.watch()))
      assert.strictEqual(error._tag, "HttpClientError")
      if (error._tag === "HttpClientError") assert.strictEqual(error.reason._tag, "TransportError")
    }).pipe(Effect.scoped)
  )
})

describe("ending the consumer closes the socket", () => {
  it.live("take(n) on each stream: the server ends every connection", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      const proxy = yield* startTcpProxy(Number(new URL(server.origin).port))
      const client = yield* clientFor(proxy.origin, server.apiKey)
      yield* client.health.watch().pipe(Stream.take(1), Stream.runDrain)
      yield* client.routes.watch().pipe(Stream.take(1), Stream.runDrain)
      yield* client.events.watch().pipe(Stream.take(1), Stream.runDrain)
      yield* client.routes.validateStream(Stream.make("a: {}")).pipe(Stream.runDrain)
      assert.strictEqual(proxy.upstreams(), 4)
      yield* eventually(() => proxy.endedByServer() === 4 && proxy.openUpstreams() === 0, "server closes all 4")
    }).pipe(Effect.scoped)
  )

  it.live("interrupting a consumer that waits for a frame", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const proxy = yield* startTcpProxy(Number(new URL(server.origin).port))
      const client = yield* clientFor(proxy.origin, server.apiKey)
      // No routes: the health map `{}` comes first and never changes, so the consumer then waits.
      const first = yield* Deferred.make<void>()
      const fiber = yield* client.health.watch().pipe(
        Stream.tap(() => Deferred.succeed(first, undefined)),
        Stream.runDrain,
        Effect.forkChild
      )
      yield* Deferred.await(first)
      yield* Fiber.interrupt(fiber)
      yield* eventually(() => proxy.endedByServer() === 1 && proxy.openUpstreams() === 0, "server closes")
    }).pipe(Effect.scoped)
  )
})
