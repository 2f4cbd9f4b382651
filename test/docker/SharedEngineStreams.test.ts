import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { openWs } from "../../packages/transport-http/test/support/Http.js"
import { startDockerd } from "../support/Dockerd.js"
import { startEngineProxy } from "../support/EngineProxy.js"
import { requireTool } from "../support/e2e.js"
import { startTestServer } from "../support/TestServer.js"
import { waitFor } from "../support/WaitFor.js"
import { chatty } from "./EngineSuite.js"

// Seen from the engine's side (a proxy in front of a real dockerd counts what the server asks it for): any number of
// WebSocket watchers of one container's stats cost one engine stats stream, followers of the same logs one follow,
// and the engine's stream is closed when the last of them leaves.

const dockerd = requireTool("dockerd")

const watchers = 20

describe.skipIf(dockerd.skip)("engine streams shared by their watchers", { timeout: 90_000 }, () => {
  it.live("20 stats watchers: one engine stream; 20 log followers: one follow, another query another; none left", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* startDockerd
        const proxy = yield* startEngineProxy(engine.socket)
        const server = yield* startTestServer({
          configYaml: `docker:\n  hosts:\n    - { name: local, url: "unix://${proxy.socket}" }\n`
        })
        const id = yield* engine.run("chatty", chatty)
        const statsStreams = () => proxy.open().filter((r) => r.startsWith(`GET /containers/${id}/stats?`))
        const follows = () => proxy.open().filter((r) => r.startsWith(`GET /containers/${id}/logs?`))
        const openCount = (count: () => ReadonlyArray<string>) => Effect.sync(() => count().length)
        const ws = (p: string) => openWs(`${server.wsUrl}${p}`, { key: server.apiKey })

        const stats = yield* Effect.forEach(Array.from({ length: watchers }), () => ws("/docker/stats/chatty"), {
          concurrency: "unbounded"
        })
        for (const client of stats) assert.strictEqual(JSON.parse(yield* client.next()).id, id)
        assert.deepStrictEqual(statsStreams().length, 1, JSON.stringify(statsStreams()))
        assert.match(statsStreams()[0]!, /stream=(true|1)/)
        for (const client of stats) client.socket.close()
        yield* waitFor(
          openCount(statsStreams),
          (n) => n === 0,
          "the engine's stats stream to close with the last watcher"
        )
        const statsRequests = proxy.requests().filter((r) => r.startsWith(`GET /containers/${id}/stats?`))
        assert.lengthOf(statsRequests, 1, "one stats stream opened for all of them")

        const logs = yield* Effect.forEach(Array.from({ length: watchers }), () => ws("/docker/logs/chatty?limit=3"), {
          concurrency: "unbounded"
        })
        for (const client of logs) assert.match(JSON.parse(yield* client.next()).line, /^(out|err) \d+$/)
        assert.strictEqual(follows().length, 1, JSON.stringify(follows()))
        assert.match(follows()[0]!, /follow=(true|1)/)
        const other = yield* ws("/docker/logs/chatty?limit=4")
        yield* other.next()
        assert.strictEqual(follows().length, 2, "a different query is a follow of its own")
        for (const client of [...logs, other]) client.socket.close()
        yield* waitFor(openCount(follows), (n) => n === 0, "every engine follow to close with its last follower")
      })
    )
  )
})
