import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { AccessLogWriter } from "@gatehouse-edge/transport-http"
import { Effect, Logger, References } from "effect"
import { spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { writeAccessLog } from "../../transport-http/src/middleware/AccessLog.js"

const entry = { method: "GET", path: "/api/v1/version", status: 200, duration_ms: 3 }

interface Line {
  readonly message: string
  readonly level: string
  readonly timestamp: string
  readonly annotations: Record<string, unknown>
  readonly spans: Record<string, number>
  readonly fiberId: string
}

const jsonLines = (stdout: string): Array<Line> =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line)

describe("the access log", () => {
  it.effect("without a direct writer it is Effect.logInfo('http') annotated with the entry; below Info, nothing", () =>
    Effect.gen(function* () {
      const seen: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
      const capture = Logger.make((options) => {
        seen.push({ message: options.message, annotations: options.fiber.getRef(References.CurrentLogAnnotations) })
      })
      yield* writeAccessLog(entry).pipe(Effect.provide(Logger.layer([capture])))
      assert.deepStrictEqual(seen, [{ message: ["http"], annotations: { ...entry } }])
      yield* writeAccessLog(entry).pipe(
        Effect.provide(Logger.layer([capture])),
        Effect.provideService(References.MinimumLogLevel, "Warn")
      )
      assert.strictEqual(seen.length, 1)
    })
  )

  it.effect(
    "with a direct writer the entry goes to it (below Info, nothing), and the logger pipeline is not used",
    () =>
      Effect.gen(function* () {
        const written: Array<unknown> = []
        const logged: Array<unknown> = []
        yield* writeAccessLog(entry).pipe(
          Effect.provide(Logger.layer([Logger.make((options) => logged.push(options.message))])),
          Effect.provideService(AccessLogWriter, (e) => written.push(e))
        )
        assert.deepStrictEqual(written, [entry])
        assert.deepStrictEqual(logged, [])
        // The level applies to the writer too.
        yield* writeAccessLog(entry).pipe(
          Effect.provideService(AccessLogWriter, (e) => written.push(e)),
          Effect.provideService(References.MinimumLogLevel, "Warn")
        )
        assert.strictEqual(written.length, 1)
      })
  )

  it.live(
    "gatehouse serve writes one JSON line per request, as Logger.formatJson would, with the request id",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-access-log-")
        const server = yield* spawnServer(["--data", path.join(dir, "data"), "--http", "127.0.0.1:0"], { cwd: dir })
        const key = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
        // The body is read so the connection is idle when the server stops.
        const status = yield* Effect.promise(() =>
          fetch(`${server.baseUrl}/version?`, {
            headers: { authorization: `Bearer ${key}`, "x-request-id": "req-42" }
          }).then((r) => r.text().then(() => r.status))
        )
        assert.strictEqual(status, 200)
        yield* server.stop()
        const lines = jsonLines(server.output.stdout).filter((line) => line.message === "http")
        assert.strictEqual(lines.length, 1, server.output.stdout)
        const line = lines[0]!
        assert.deepStrictEqual(Object.keys(line), ["message", "level", "timestamp", "annotations", "spans", "fiberId"])
        assert.strictEqual(line.level, "INFO")
        assert.isFalse(Number.isNaN(Date.parse(line.timestamp)))
        assert.deepStrictEqual(line.spans, {})
        assert.match(line.fiberId, /^#\d+$/)
        const { duration_ms, ...rest } = line.annotations
        assert.deepStrictEqual(rest, { method: "GET", path: "/api/v1/version", status: 200, request_id: "req-42" })
        assert.isTrue(typeof duration_ms === "number" && duration_ms >= 0)
      }).pipe(Effect.scoped),
    60_000
  )
})
