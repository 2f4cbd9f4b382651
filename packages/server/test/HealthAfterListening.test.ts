import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Events } from "@gatehouse-edge/core/services"
import { Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { freePort } from "../../../test/support/FreePort.js"
import { serverOnTempDir } from "../../../test/support/ServerOnTempDir.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { makeTestCa } from "../../../test/support/TestCa.js"
import { waitFor } from "../../../test/support/WaitFor.js"
import { request } from "../../transport-http/test/support/Http.js"

// Longer than the first second in which a monitor checks once it may (HealthLive's first-check spread).
const FIRST_CHECK_WINDOW_MS = 2500

/**
 * A FIFO in place of a file the server reads as it starts: the read waits (in the kernel) until `release` writes
 * `content`, so the start is held at that read. Unblocked when the scope closes, whatever the test did.
 */
const heldFile = (dir: string, name: string, content: Buffer) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const fifo = path.join(dir, name)
      execFileSync("mkfifo", [fifo])
      let released = false
      const release = Effect.promise(async () => {
        if (released) return
        released = true
        await fs.promises.writeFile(fifo, content)
      })
      // Opening for reading and writing never waits, and wakes a reader waiting in its open (it then reads EOF).
      const unblock = Effect.sync(() => {
        if (released) return
        released = true
        fs.closeSync(fs.openSync(fifo, "r+"))
      })
      return { fifo, release, unblock }
    }),
    (held) => held.unblock
  )

describe("health checks after the listeners are bound", () => {
  it.live(
    "routes that check the server itself are not checked before both listeners are bound: no health/down",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const httpPort = yield* freePort
          const grpcPort = yield* freePort
          const certs = yield* tempDir("gatehouse-listening-")
          const ca = makeTestCa(certs)
          // The gRPC listener is held at its certificate: HTTP binds, gRPC does not, until the test lets it.
          const cert = yield* heldFile(certs, "grpc-cert.fifo", fs.readFileSync(ca.serverCert))
          const check = "healthcheck: { interval: 1s, timeout: 2s, retries: 0 }"
          const { config, layer } = yield* serverOnTempDir("gatehouse-listening-", {
            configYaml: `grpc:\n  tls: { cert: ${cert.fifo}, key: ${ca.serverKey} }\n`,
            routeFiles: {
              "self.yml": [
                `self:\n  scheme: http\n  host: 127.0.0.1\n  port: ${httpPort}`,
                `  healthcheck: { path: /api/v1/version, interval: 1s, timeout: 2s, retries: 0 }`,
                `self-grpc:\n  scheme: tcp\n  host: 127.0.0.1\n  port: ${grpcPort}\n  ${check}\n`
              ].join("\n")
            },
            flags: { http: `127.0.0.1:${httpPort}`, grpc: `127.0.0.1:${grpcPort}` }
          })
          // Closed before the directories are removed; a start still held is interrupted first.
          const scope = yield* Scope.make()
          yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
          const starting = yield* Effect.forkScoped(Layer.buildWithScope(layer, scope))

          // The core is built before the transports: once HTTP answers, the health monitors run.
          const origin = `http://127.0.0.1:${httpPort}/api/v1`
          yield* waitFor(
            request(`${origin}/version`).pipe(
              Effect.map((reply) => reply.status),
              // Refused until the listener is bound.
              Effect.catchDefect(() => Effect.succeed(0))
            ),
            (status) => status === 200,
            "the HTTP listener",
            30_000
          )
          const key = fs.readFileSync(path.join(config.dataDir, "admin.key"), "utf8").trim()
          const checked = (map: Record<string, { last_check: string | null }>) =>
            map.self?.last_check != null || map["self-grpc"]?.last_check != null
          // Held on the wall clock, on purpose: the defect is a check that runs during the real start. Without the
          // wait for the listeners, both routes are checked within the window and the gRPC one goes down.
          const heldUntil = Date.now() + FIRST_CHECK_WINDOW_MS
          while (Date.now() < heldUntil) {
            const health = yield* request(`${origin}/health`, { key })
            assert.strictEqual(health.status, 200)
            assert.isFalse(checked(health.json), `checked before gRPC listened: ${JSON.stringify(health.json)}`)
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
          }

          yield* cert.release
          const context = yield* Fiber.join(starting)
          yield* waitFor(
            request(`${origin}/health`, { key }).pipe(Effect.map((reply) => reply.json)),
            (map) => map.self?.status === "healthy" && map["self-grpc"]?.status === "healthy",
            "both routes healthy"
          )
          const events = yield* Context.get(context, Events).history({ category: "health" })
          assert.deepStrictEqual(
            events.map((event) => `${event.action} ${(event.data as { alias: string }).alias}`),
            [],
            "the first verdicts are healthy, and a first healthy verdict publishes nothing"
          )
        })
      ),
    60_000
  )
})
