import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { createGatehouseClient, type GatehousePromiseClient, type RouteValidationMessage } from "@gatehouse-edge/client"
import {
  DockerNotConfigured,
  HypervisorNotConfigured,
  InvalidYaml,
  RouteNotFound,
  Unauthenticated,
  ValidationFailed
} from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import { startTestServer, type TestServer } from "../../../test/support/TestServer.js"
import { routeFile } from "./support/Clients.js"
import { startTcpProxy } from "./support/TcpProxy.js"

/** Runs `body` with a promise client of `server` (through `baseUrl` if given), closing the client afterwards. */
const withClient = (
  server: TestServer,
  body: (client: GatehousePromiseClient) => Promise<void>,
  options: { readonly baseUrl?: string; readonly apiKey?: string } = {}
) =>
  Effect.acquireUseRelease(
    Effect.sync(() =>
      createGatehouseClient({ baseUrl: options.baseUrl ?? server.baseUrl, apiKey: options.apiKey ?? server.apiKey })
    ),
    (client) => Effect.promise(() => body(client)),
    (client) => Effect.promise(() => client.close())
  )

const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected the promise to reject")
}

/** Polls until `check` holds (every 20 ms, for at most 5 s). */
const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 5_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe("promise client: calls", () => {
  it.live("every group answers", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      yield* withClient(server, async (client) => {
        assert.strictEqual((await client.system.version()).version, "0.0.0-test")
        assert.strictEqual((await client.system.openapiJson()).openapi, "3.1.0")
        assert.include(await client.system.openapiYaml(), "openapi:")
        assert.deepStrictEqual(
          (await client.routes.list()).map((r) => r.alias),
          ["app"]
        )
        assert.strictEqual((await client.routes.get("app")).provider, "file:app.yml")
        const validated = await client.routes.validate("web:\n  port: 8080\n")
        assert.deepStrictEqual(
          validated.routes.map((r) => r.alias),
          ["web"]
        )
        assert.deepStrictEqual(Object.keys(await client.health.get()), ["app"])
        assert.isArray(await client.events.list({ limit: 10 }))
        assert.deepStrictEqual(await client.files.list(), { config: [], routes: ["app.yml"] })
        assert.strictEqual(await client.files.read("routes", "app.yml"), routeFile("app"))
        assert.strictEqual((await client.files.validate("routes", routeFile("web"))).valid, true)
        assert.strictEqual((await client.files.write("routes", "web.yml", routeFile("web"))).filename, "web.yml")
        assert.isTrue(fs.existsSync(path.join(server.routesDir, "web.yml")))
      })
    }).pipe(Effect.scoped)
  )

  it.live("rejects with the typed error instances", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      yield* withClient(server, async (client) => {
        const notFound = await rejection(client.routes.get("nope"))
        assert.instanceOf(notFound, RouteNotFound)
        assert.strictEqual((notFound as RouteNotFound)._tag, "RouteNotFound")
        assert.strictEqual((notFound as RouteNotFound).alias, "nope")
        assert.instanceOf(await rejection(client.routes.validate("a: [")), InvalidYaml)
        const invalid = await rejection(client.routes.validate("a:\n  port: 99999\n"))
        assert.instanceOf(invalid, ValidationFailed)
        assert.deepStrictEqual((invalid as ValidationFailed).issues[0]?.path, ["a", "port"])
      })
      yield* withClient(
        server,
        async (client) => {
          assert.instanceOf(await rejection(client.routes.list()), Unauthenticated)
          assert.instanceOf(await rejection(client.health.watch()[Symbol.asyncIterator]().next()), Unauthenticated)
        },
        { apiKey: "gh_00000000_wrong" }
      )
    }).pipe(Effect.scoped)
  )

  it.live("an aborted call rejects with the signal's reason, as fetch does", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      yield* withClient(server, async (client) => {
        const controller = new AbortController()
        controller.abort()
        const error = await rejection(client.routes.list({ signal: controller.signal }))
        assert.strictEqual(error, controller.signal.reason)
        assert.strictEqual((error as DOMException).name, "AbortError")
        // Aborted while the request is on its way, with a reason of the caller's.
        const later = new AbortController()
        const reason = new Error("the user went away")
        const pending = rejection(client.events.list({ limit: 5 }, { signal: later.signal }))
        later.abort(reason)
        assert.strictEqual(await pending, reason)
        // A call that is not aborted still rejects with its own typed error.
        const notFound = await rejection(client.routes.get("nope", { signal: new AbortController().signal }))
        assert.instanceOf(notFound, RouteNotFound)
      })
    }).pipe(Effect.scoped)
  )
})

describe("promise client: streams", () => {
  it.live("for await over health.watch; break closes the socket", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      const proxy = yield* startTcpProxy(Number(new URL(server.origin).port))
      yield* withClient(
        server,
        async (client) => {
          const maps = []
          for await (const map of client.health.watch()) {
            maps.push(map)
            break
          }
          assert.deepStrictEqual(Object.keys(maps[0]!), ["app"])
          assert.strictEqual(proxy.upstreams(), 1)
          await until(() => proxy.endedByServer() === 1 && proxy.openUpstreams() === 0, "the server closes")
        },
        { baseUrl: proxy.origin }
      )
    }).pipe(Effect.scoped)
  )

  it.live("routes.watch and events.watch follow a change", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      yield* withClient(server, async (client) => {
        let lists = 0
        for await (const list of client.routes.watch()) {
          if (lists++ === 0) fs.writeFileSync(path.join(server.routesDir, "web.yml"), routeFile("web"))
          if (list.some((r) => r.alias === "web")) break
        }
        for await (const event of client.events.watch({ category: "config" })) {
          // Events are typed: narrowing on category/action and the data's source gives the routes reload's fields.
          if (event.action === "reload" && event.data.source === "routes" && event.data.added.includes("web")) break
        }
      })
    }).pipe(Effect.scoped)
  )

  it.live("optional fields given as undefined are left out, as if not given (plain JavaScript writes them)", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      // What a caller writes in plain JavaScript, or in TypeScript without exactOptionalPropertyTypes.
      const absent = undefined as unknown as string
      yield* withClient(server, async (client) => {
        assert.isArray(await client.events.list({ limit: 5, category: absent }))
        fs.writeFileSync(path.join(server.routesDir, "web.yml"), routeFile("web"))
        for await (const event of client.events.watch({ category: absent, since: absent })) {
          if (event.action === "reload") break
        }
        // Refused by the server (nothing configured), not by the client's schema for an explicit undefined.
        const first = async (lines: AsyncIterable<unknown>) => {
          for await (const line of lines) return line
        }
        const journal = await rejection(
          first(client.hypervisor.journal({ node: "pve1", vmid: absent as unknown as number }))
        )
        assert.instanceOf(journal, HypervisorNotConfigured)
        const logs = await rejection(first(client.docker.followLogs("web", { since: absent })))
        assert.instanceOf(logs, DockerNotConfigured)
      })
    }).pipe(Effect.scoped)
  )

  it.live("authRequests.listAll follows the pages (before = the last auth_id) to the end; list takes the filters", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      yield* withClient(server, async (client) => {
        const src = "10.4.4.4"
        for (let i = 0; i < 5; i++) {
          await client.authRequests.create({ kind: "ssh_check", ssh_check: { src, dst: `h${i}`, local_user: "root" } })
        }
        await client.authRequests.create({
          kind: "ssh_check",
          ssh_check: { src: "10.5.5.5", dst: "h", local_user: "x" }
        })
        const whole = (await client.authRequests.list({ src })).map((r) => r.auth_id)
        assert.strictEqual(whole.length, 5)
        const seen: Array<string> = []
        for await (const request of client.authRequests.listAll({ src, limit: 2 })) {
          seen.push(request.auth_id)
          if (seen.length > 10) break // a cursor that does not move would repeat the first page for ever
        }
        assert.deepStrictEqual(seen, whole)
        assert.deepStrictEqual(
          (await client.authRequests.list({ src, limit: 2, before: whole[1] })).map((r) => r.auth_id),
          whole.slice(2, 4)
        )
        assert.strictEqual((await client.authRequests.list({ src, dst: "h3", local_user: "root" })).length, 1)
      })
    }).pipe(Effect.scoped)
  )

  it.live("validateStream takes an iterable or an async iterable of documents", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      yield* withClient(server, async (client) => {
        const collect = async (iterable: AsyncIterable<RouteValidationMessage>) => {
          const frames: Array<RouteValidationMessage> = []
          for await (const frame of iterable) frames.push(frame)
          return frames.map((f) => ("done" in f ? `done ${f.valid}/${f.invalid}` : `${f.alias} ${f.valid}`))
        }
        assert.deepStrictEqual(await collect(client.routes.validateStream(["a:\n  port: 80\n", "b:\n  port: -1\n"])), [
          "a true",
          "done 1/0",
          "b false",
          "done 0/1"
        ])
        async function* documents() {
          yield "c:\n  port: 81\n"
        }
        assert.deepStrictEqual(await collect(client.routes.validateStream(documents())), ["c true", "done 1/0"])
      })
    }).pipe(Effect.scoped)
  )

  it.live("close() ends open streams and closes their sockets", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const proxy = yield* startTcpProxy(Number(new URL(server.origin).port))
      yield* Effect.promise(async () => {
        const client = createGatehouseClient({ baseUrl: proxy.origin, apiKey: server.apiKey })
        const iterator = client.health.watch()[Symbol.asyncIterator]()
        assert.deepStrictEqual((await iterator.next()).value, {})
        // Nothing changes, so this waits until the client is closed.
        const pending = iterator.next()
        await client[Symbol.asyncDispose]()
        assert.deepStrictEqual(await pending, { done: true, value: undefined })
        await until(() => proxy.endedByServer() === 1 && proxy.openUpstreams() === 0, "the server closes")
      })
    }).pipe(Effect.scoped)
  )

  it.live("after close(), calls and streams reject with an Error that says so, not a bare string", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const outcome = yield* Effect.promise(async () => {
        const client = createGatehouseClient({ baseUrl: server.baseUrl, apiKey: server.apiKey })
        await client.system.version()
        await client.close()
        const called = await rejection(client.system.version())
        let watched: unknown = "no frame and no error"
        try {
          for await (const _ of client.health.watch()) {
            watched = "a frame"
            break
          }
        } catch (error) {
          watched = error
        }
        await client.close()
        return { called, watched }
      })
      for (const error of [outcome.called, outcome.watched]) {
        assert.instanceOf(error, Error)
        assert.strictEqual((error as Error).message, "the Gatehouse client is closed")
      }
    }).pipe(Effect.scoped)
  )
})
