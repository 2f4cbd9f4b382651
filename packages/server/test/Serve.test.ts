import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli, spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { openWs, request } from "../../transport-http/test/support/Http.js"

const serveDir = tempDir("gatehouse-serve-")

describe("gatehouse serve", () => {
  it.live(
    "starts on the embedded defaults: example routes, admin key saved 0600 and named in the log, graceful stop",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* serveDir
          const server = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd: dir })
          const keyFile = path.join(dir, "data", "admin.key")
          const key = fs.readFileSync(keyFile, "utf8").trim()
          assert.match(key, /^gh_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/)
          assert.strictEqual(fs.statSync(keyFile).mode & 0o777, 0o600)
          // Its output piped, as under systemd or docker: one line names the key's file, the key is not in the log
          // (a terminal is shown the key itself: ServeAdminKey.test.ts).
          assert.include(server.output.stdout, `generated the admin API key: it is in ${keyFile} (mode 0600)`)
          assert.notInclude(server.output.stdout, key)
          assert.isTrue(fs.existsSync(path.join(dir, "routes", "example.yml")))

          const routes = yield* request(`${server.baseUrl}/route/list`, { key })
          assert.strictEqual(routes.status, 200)
          assert.includeMembers(
            routes.json.map((r: any) => r.alias),
            ["gatehouse", "my-app", "ssh-local"]
          )
          const health = yield* openWs(`${server.baseUrl.replace("http", "ws")}/health`, { key })
          yield* health.next()

          const result = yield* server.stop()
          assert.strictEqual(result.code, 0, result.stderr)
          assert.strictEqual((yield* Effect.promise(() => health.closed)).code, 1001)
          // The store was closed cleanly: SQLite checkpointed and removed its write-ahead log.
          assert.isFalse(fs.existsSync(path.join(dir, "data", "gatehouse.db-wal")))

          // A second start reuses the key: no new one, and the key still not in the log.
          const again = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd: dir })
          assert.notMatch(again.output.stdout, /generated the admin API key/i)
          assert.notInclude(again.output.stdout, key)
          const version = yield* request(`${again.baseUrl}/route/list`, { key })
          assert.strictEqual(version.status, 200)
          yield* again.stop()
        })
      ),
    60_000
  )

  it.live("refuses an invalid config file with every problem (file:line:column) and exit code 1", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        fs.writeFileSync(path.join(dir, "gatehouse.yml"), "http:\n  adr: 127.0.0.1:1\nevents: { history: -1 }\n")
        const result = yield* runCli(["serve"], { cwd: dir })
        assert.strictEqual(result.code, 1)
        assert.include(result.stderr, "gatehouse.yml:2:3: http.adr: unknown key `adr` (did you mean `addr`?)")
        assert.include(result.stderr, "gatehouse.yml:3:20: events.history:")
        assert.isFalse(fs.existsSync(path.join(dir, "data")), "nothing is created for a config that was refused")
      })
    )
  )

  it.live("names the environment variable or flag that holds a bad value", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        const result = yield* runCli(["serve", "--grpc", "nowhere"], {
          cwd: dir,
          env: { GATEHOUSE_HTTP_MAX_BODY: "huge" }
        })
        assert.strictEqual(result.code, 1)
        assert.include(result.stderr, "GATEHOUSE_HTTP_MAX_BODY: http.max_body:")
        assert.include(result.stderr, "--grpc: grpc.addr:")
      })
    )
  )

  it.live("--strict refuses invalid route files at start and says where the problems are", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        fs.mkdirSync(path.join(dir, "routes"))
        fs.writeFileSync(path.join(dir, "routes", "bad.yml"), "app:\n  port: 99999\n")
        const result = yield* runCli(["serve", "--strict", "--http", "127.0.0.1:0"], { cwd: dir })
        assert.strictEqual(result.code, 1)
        assert.include(result.stderr, "the route files are invalid")
        assert.include(result.stderr, "bad.yml:2:9: app.port:")
        // Refused before anything was made: no store, no admin key (a CI check leaves nothing behind).
        assert.isFalse(fs.existsSync(path.join(dir, "data")), "no data directory")
        assert.notInclude(result.stdout, "admin API key")
      })
    )
  )

  it.live("by default starts with the valid route files and reports the invalid ones as config/error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        fs.mkdirSync(path.join(dir, "routes"))
        fs.writeFileSync(path.join(dir, "routes", "bad.yml"), "app:\n  port: 99999\n")
        fs.writeFileSync(path.join(dir, "routes", "good.yml"), "web:\n  port: 8080\n")
        const server = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd: dir })
        const key = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
        const routes = yield* request(`${server.baseUrl}/route/list`, { key })
        assert.deepStrictEqual(
          routes.json.map((r: any) => r.alias),
          ["web"]
        )
        const events = yield* request(`${server.baseUrl}/events?category=config`, { key })
        const error = events.json.find((e: any) => e.action === "error")
        assert.deepInclude(error.data.issues[0], { file: "bad.yml", line: 2, column: 9, path: ["app", "port"] })
        // The server's own entry in /health says something is wrong, until the file is fixed.
        const health = yield* request(`${server.baseUrl}/health`, { key })
        assert.strictEqual(health.json["@gatehouse"].status, "error")
        fs.writeFileSync(path.join(dir, "routes", "bad.yml"), "app:\n  port: 9999\n")
        let fixed = health
        for (let i = 0; i < 100 && "@gatehouse" in fixed.json; i++) {
          yield* Effect.sleep("100 millis")
          fixed = yield* request(`${server.baseUrl}/health`, { key })
        }
        assert.deepStrictEqual(Object.keys(fixed.json).sort(), ["app", "web"])
        yield* server.stop()
      })
    )
  )

  it.live("reports an address in use instead of a stack trace", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        const first = yield* spawnServer(["--http", "127.0.0.1:0", "--data", "one"], { cwd: dir })
        const port = new URL(first.baseUrl).port
        const result = yield* runCli(["serve", "--http", `127.0.0.1:${port}`, "--data", "two"], { cwd: dir })
        assert.strictEqual(result.code, 1)
        assert.include(result.stderr, `cannot listen on 127.0.0.1:${port}: the address is already in use`)
      })
    )
  )

  it.live("refuses a second server on the same data dir, naming its lock; the lock goes with the server", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        const first = yield* spawnServer(["--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--data", "one"], {
          cwd: dir
        })
        const second = yield* runCli(["serve", "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--data", "one"], {
          cwd: dir
        })
        assert.strictEqual(second.code, 1, second.stdout)
        assert.include(
          second.stderr,
          `another process (another gatehouse serve?) uses this data dir: ${path.join(dir, "one", "gatehouse.lock")} is locked`
        )
        // Killed, the first leaves no lock behind: the operating system drops it with the process.
        first.child.kill("SIGKILL")
        yield* Effect.promise(() => first.exited)
        const after = yield* spawnServer(["--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--data", "one"], {
          cwd: dir
        })
        assert.strictEqual((yield* after.stop()).code, 0)
      })
    )
  )

  it.live(
    "reloads on file changes; an invalid change emits config/error and the running configuration stays",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* serveDir
          const configFile = path.join(dir, "gatehouse.yml")
          fs.writeFileSync(configFile, "routes_dir: ./routes\nevents: { history: 100 }\n")
          fs.mkdirSync(path.join(dir, "routes"))
          fs.writeFileSync(path.join(dir, "routes", "main.yml"), "app:\n  port: 8080\n")
          const server = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd: dir })
          const key = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
          const events = yield* openWs(`${server.baseUrl.replace("http", "ws")}/events?category=config`, { key })

          fs.writeFileSync(path.join(dir, "routes", "main.yml"), "app:\n  port: 8080\n  bind: not-an-ip\n")
          const routeError = yield* events.until((e) => e.action === "error")
          assert.strictEqual(routeError.level, "error")
          assert.strictEqual(routeError.data.source, "routes")
          assert.deepStrictEqual(routeError.data.issues[0].path, ["app", "bind"])
          const still = yield* request(`${server.baseUrl}/route/app`, { key })
          assert.strictEqual(still.json.port.target, 8080)

          fs.writeFileSync(path.join(dir, "routes", "main.yml"), "app:\n  port: 8081\n")
          const reload = yield* events.until((e) => e.action === "reload")
          assert.deepStrictEqual(reload.data.changed, ["app"])
          const changed = yield* request(`${server.baseUrl}/route/app`, { key })
          assert.strictEqual(changed.json.port.target, 8081)

          fs.writeFileSync(configFile, "routes_dir: ./routes\nevents: { history: nope }\n")
          const configError = yield* events.until((e) => e.action === "error")
          assert.strictEqual(configError.data.source, "config")
          assert.include(configError.data.issues[0].message, "expected")
          assert.strictEqual((yield* request(`${server.baseUrl}/version`)).status, 200)

          fs.writeFileSync(configFile, "routes_dir: ./routes\nevents: { history: 50 }\n")
          const configReload = yield* events.until((e) => e.action === "reload" && e.data.source === "config")
          assert.deepStrictEqual(configReload.data.changed, ["events.history"])
          assert.deepStrictEqual(configReload.data.restart_required, ["events.history"])
          yield* server.stop()
        })
      ),
    60_000
  )
})

describe("gatehouse validate / openapi", () => {
  it.live("validates route files offline: OK with exit 0, problems as file:line:column with exit 1", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        fs.writeFileSync(path.join(dir, "a.yml"), "app:\n  port: 8080\n")
        fs.writeFileSync(path.join(dir, "b.yml"), "app:\n  port: 8081\nweb:\n  scheme: htp\n  port: 80\n")
        const ok = yield* runCli(["validate", "a.yml"], { cwd: dir })
        assert.strictEqual(ok.code, 0, ok.stderr)
        assert.include(ok.stdout, "OK: 1 route in 1 file")
        const bad = yield* runCli(["validate", "a.yml", "b.yml"], { cwd: dir })
        assert.strictEqual(bad.code, 1)
        assert.include(bad.stderr, "b.yml:1:1: app:")
        assert.include(bad.stderr, "b.yml:4:11: web.scheme:")
        const missing = yield* runCli(["validate", "nope.yml"], { cwd: dir })
        assert.strictEqual(missing.code, 1)
        assert.include(missing.stderr, "nope.yml: cannot read: no such file")
      })
    )
  )

  it.live("prints the OpenAPI document", () =>
    Effect.gen(function* () {
      const result = yield* runCli(["openapi"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(JSON.parse(result.stdout).openapi, "3.1.0")
    })
  )
})
