import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { openWs, request } from "../../packages/transport-http/test/support/Http.js"
import { startDockerd } from "../support/Dockerd.js"
import { startEngineProxy } from "../support/EngineProxy.js"
import { requireTool } from "../support/e2e.js"
import { startTestServer } from "../support/TestServer.js"
import { dockerWorld } from "./DockerWorld.js"

// What the API answers for a container in a state an operation does not fit, as the engine decides the state: a
// paused container asked to start, the stats of a stopped one, a stats stream whose container stops. A real dockerd
// and the real server composition.

const dockerd = requireTool("dockerd")

const sleeper = { Cmd: ["sleep", "1000"], StopSignal: "SIGKILL" }

describe.skipIf(dockerd.skip)("containers in a state an operation does not fit", { timeout: 90_000 }, () => {
  it.live("start of a paused container: 409 naming the state (the engine refuses it); stop and restart act", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { engine, url, key } = yield* dockerWorld()
        yield* engine.run("pz", sleeper)
        const pause = () => engine.api("POST", "/containers/pz/pause")
        assert.strictEqual((yield* pause()).status, 204)
        const act = (action: string) => request(url(`/docker/containers/pz/${action}`), { key, method: "POST" })

        const start = yield* act("start")
        assert.strictEqual(start.status, 409, start.text)
        assert.deepStrictEqual(start.json.error, {
          code: "failed_precondition",
          message: "container pz is paused: unpause it first",
          details: [{ reason: "ContainerPaused", host: "local", name: "pz" }]
        })
        const restart = yield* act("restart")
        assert.strictEqual(restart.status, 200, restart.text)
        assert.deepStrictEqual(restart.json, { message: "container restarted", state: "running" })
        assert.strictEqual((yield* pause()).status, 204)
        const stop = yield* act("stop")
        assert.strictEqual(stop.status, 200, stop.text)
        assert.deepStrictEqual(stop.json, { message: "container stopped", state: "exited" })
      })
    )
  )

  it.live("stats: a stream ends (1000) when its container stops, with no sample of zeros; then 409, at once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* startDockerd
        // In front of the engine: what the server asks it for.
        const proxy = yield* startEngineProxy(engine.socket)
        const server = yield* startTestServer({
          configYaml: `docker:\n  hosts:\n    - { name: local, url: "unix://${proxy.socket}" }\n`
        })
        const { apiKey: key } = server
        const url = (p: string) => `${server.baseUrl}${p}`
        const ws = (p: string) => `${server.wsUrl}${p}`
        const id = yield* engine.run("st", sleeper)
        const watcher = yield* openWs(ws("/docker/stats/st"), { key })
        const first = JSON.parse(yield* watcher.next())
        assert.strictEqual(first.id, id)
        assert.strictEqual((yield* engine.api("POST", `/containers/${id}/stop`)).status, 204)
        // Docker goes on sending samples of zeros every second: the stream must end instead.
        const closed = yield* Effect.promise(() => watcher.closed).pipe(Effect.timeout("10 seconds"))
        assert.strictEqual(closed.code, 1000)
        for (const frame of watcher.frames) assert.notMatch(JSON.parse(frame).timestamp, /^0001-/, frame)

        const asked = proxy.requests().length
        const stats = yield* request(url("/docker/stats/st"), { key })
        assert.strictEqual(stats.status, 409, stats.text)
        assert.deepStrictEqual(stats.json.error, {
          code: "failed_precondition",
          message: "container st is not running (state: exited)",
          details: [{ reason: "ContainerNotRunning", host: "local", name: "st", state: "exited" }]
        })
        // Without asking the engine for a sample (the engine's answer, after a second: zeros stamped 0001-01-01).
        assert.deepStrictEqual(
          proxy
            .requests()
            .slice(asked)
            .filter((r) => r.includes("/stats")),
          []
        )
        // A stream is refused the same way, before the upgrade.
        const refused = yield* Effect.flip(openWs(ws("/docker/stats/st"), { key }))
        assert.strictEqual(refused.status, 409, refused.body)
      })
    )
  )
})
