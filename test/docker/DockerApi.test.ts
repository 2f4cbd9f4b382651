import { assert, describe, it } from "@effect/vitest"
import { toEngineTime } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { createGatehouseClient } from "../../packages/client/src/index.js"
import { openWs, request } from "../../packages/transport-http/test/support/Http.js"
import { requireTool } from "../support/e2e.js"
import { waitFor } from "../support/WaitFor.js"
import { dockerWorld } from "./DockerWorld.js"

// The Docker endpoints end to end: the real server composition and the typed client against a real dockerd.

const dockerd = requireTool("dockerd")

const chatty = {
  Cmd: ["sh", "-c", 'i=0; while true; do i=$((i+1)); echo "out $i"; echo "err $i" >&2; sleep 0.1; done']
}

const world = dockerWorld()

/** An RFC 3339 time in nanoseconds since 1970 (the engine trims trailing zeros, so the text does not sort). */
const nanosOf = (time: string): bigint => {
  const [seconds, fraction = ""] = toEngineTime(time)!.split(".")
  return BigInt(seconds!) * 1_000_000_000n + BigInt(fraction.padEnd(9, "0"))
}

describe.skipIf(dockerd.skip)(
  "Docker API against a real dockerd",
  // Each test starts its own dockerd (a few seconds) and real containers.
  { timeout: 90_000 },
  () => {
    it.live("containers, stats and logs over HTTP, WebSocket and the typed client; bad ids; actions", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { engine, server, url, ws, key } = yield* world
          const id = yield* engine.run("chatty", chatty)
          const list = yield* request(url("/docker/containers"), { key })
          assert.strictEqual(list.status, 200)
          assert.deepInclude(list.json[0], { host: "local", id, name: "chatty", state: "running" })

          const stats = yield* request(url(`/docker/stats/${id.slice(0, 10)}`), { key })
          assert.strictEqual(stats.status, 200)
          assert.strictEqual(stats.json.name, "chatty")
          const statsSocket = yield* openWs(ws("/docker/stats/chatty"), { key })
          assert.strictEqual(JSON.parse(yield* statsSocket.next()).id, id)

          const logsSocket = yield* openWs(ws("/docker/logs/chatty?limit=2&stderr=false"), { key })
          const first = JSON.parse(yield* logsSocket.next())
          assert.strictEqual(first.stream, "stdout")
          const later = yield* logsSocket.until((f) => f.line !== first.line)
          assert.match(later.line, /^out \d+$/)
          logsSocket.socket.close()
          const logs = yield* request(url("/docker/logs/chatty?limit=4&timestamps=true"), { key })
          assert.strictEqual(logs.status, 200)
          assert.isAtMost(logs.json.length, 4)
          for (const line of logs.json) assert.match(line.timestamp, /^\d{4}-/)
          // A line's timestamp (RFC 3339, nanoseconds) as `since`: the engine takes only Unix seconds, so the
          // server converts; the lines from that instant on come back, the first of them that very line.
          const from = logs.json[1].timestamp as string
          const since = yield* request(url(`/docker/logs/chatty?timestamps=true&since=${from}`), { key })
          assert.strictEqual(since.status, 200, since.text)
          assert.isAbove(since.json.length, 0)
          for (const line of since.json) assert.isTrue(nanosOf(line.timestamp) >= nanosOf(from), line.timestamp)
          for (const bad of ["yesterday", "2026-02-30T00:00:00Z"]) {
            const refused = yield* request(url(`/docker/logs/chatty?since=${bad}`), { key })
            assert.strictEqual(refused.status, 400, bad)
            assert.strictEqual(refused.json.error.code, "invalid_argument")
          }

          for (const [bad, status] of [
            ["a%20b", 400],
            ["nope", 404]
          ] as const) {
            const reply = yield* request(url(`/docker/stats/${bad}`), { key })
            assert.strictEqual(reply.status, status, bad)
          }
          for (const limit of ["0", "1001", "x"]) {
            assert.strictEqual((yield* request(url(`/docker/logs/chatty?limit=${limit}`), { key })).status, 400, limit)
          }

          const client = createGatehouseClient({ baseUrl: server.origin, apiKey: key })
          yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
          assert.deepStrictEqual(yield* Effect.promise(() => client.docker.act("chatty", "stop")), {
            message: "container stopped",
            state: "exited"
          })
          assert.deepStrictEqual(yield* Effect.promise(() => client.docker.act("chatty", "stop")), {
            message: "container already stopped",
            state: "exited"
          })
          assert.deepStrictEqual(yield* Effect.promise(() => client.docker.act(id, "start")), {
            message: "container started",
            state: "running"
          })
        })
      )
    )

    it.live("an id prefix of several containers is a 409 listing them; an empty id is a 400", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { engine, url, key } = yield* world
          // 17 containers: at least two share their id's first hex digit (there are only 16).
          const ids = yield* Effect.forEach(
            Array.from({ length: 17 }, (_, i) => `c${i}`),
            (name) => Effect.map(engine.run(name, { Cmd: ["true"] }, false), (id) => ({ name, id }))
          )
          const prefix = [...new Set(ids.map((c) => c.id[0]!))].find(
            (digit) => ids.filter((c) => c.id.startsWith(digit)).length > 1
          )!
          const sharing = ids.filter((c) => c.id.startsWith(prefix))
          const reply = yield* request(url(`/docker/logs/${prefix}`), { key })
          assert.strictEqual(reply.status, 409, reply.text)
          assert.strictEqual(reply.json.error.code, "failed_precondition")
          for (const { name, id } of sharing) {
            assert.include(reply.json.error.message, name)
            assert.include(reply.json.error.message, id.slice(0, 12))
          }
          // The same prefix made unique again (the whole id) finds the container.
          const one = sharing[0]!
          const logs = yield* request(url(`/docker/logs/${one.id}`), { key })
          assert.strictEqual(logs.status, 200, logs.text)
          for (const empty of ["/docker/stats/", "/docker/logs/", "/docker/stats/%20"]) {
            const refused = yield* request(url(empty), { key })
            assert.strictEqual(refused.status, 400, `${empty}: ${refused.text}`)
          }
        })
      )
    )

    it.live("the daemon dying mid-stream: the WebSocket closes with 1011 and a reason, the server stays up", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { engine, url, ws, key } = yield* world
          yield* engine.run("chatty", chatty)
          const socket = yield* openWs(ws("/docker/logs/chatty?limit=1"), { key })
          yield* socket.next()
          yield* engine.kill
          const closed = yield* Effect.promise(() => socket.closed)
          assert.strictEqual(closed.code, 1011)
          assert.match(closed.reason, /Docker host "local" is unreachable/)
          assert.strictEqual((yield* request(url("/version"), { key })).status, 200)
          const down = yield* request(url("/docker/containers"), { key })
          assert.strictEqual(down.status, 503)
          assert.match(down.json.error.message, /^Docker host "local" is unreachable/)
          // Once the daemon is back (and the back-off has passed), requests work again without a restart.
          yield* engine.start
          yield* waitFor(
            request(url("/docker/containers"), { key }),
            (r) => r.status === 200 && r.json.some((c: { name: string }) => c.name === "chatty"),
            "the engine to answer again",
            40_000
          )
        })
      )
    )
  }
)
