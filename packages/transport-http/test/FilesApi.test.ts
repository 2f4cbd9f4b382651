import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { openWs, request, sendYaml } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

const routes = "app:\n  port: 8080\n"

describe("files", () => {
  it.live("lists the config file and the route files", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "b.yml": routes, "a.yaml": "x:\n  port: 1\n", "notes.txt": "" } })
        const reply = yield* request(`${h.baseUrl}/file/list`, { key: h.apiKey })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.json, { config: ["gatehouse.yml"], routes: ["a.yaml", "b.yml"] })
      })
    )
  )

  it.live("serves file content as application/yaml, byte for byte", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const text = "# comment kept\napp:\n  port: 8080   # trailing\n"
        const h = yield* startHarness({ routeFiles: { "main.yml": text } })
        const reply = yield* request(`${h.baseUrl}/file/content?type=routes&filename=main.yml`, { key: h.apiKey })
        assert.strictEqual(reply.status, 200)
        assert.match(reply.headers.get("content-type") ?? "", /^application\/yaml/)
        assert.strictEqual(reply.text, text)
        const config = yield* request(`${h.baseUrl}/file/content?type=config&filename=gatehouse.yml`, { key: h.apiKey })
        assert.strictEqual(config.status, 200)
        assert.match(config.headers.get("content-type") ?? "", /^application\/yaml/)
      })
    )
  )

  it.live("answers 404 for a missing file", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* request(`${h.baseUrl}/file/content?type=routes&filename=nope.yml`, { key: h.apiKey })
        assert.strictEqual(reply.status, 404)
        assert.strictEqual(reply.json.error.details[0].reason, "FileNotFound")
        const config = yield* request(`${h.baseUrl}/file/content?type=config&filename=other.yml`, { key: h.apiKey })
        assert.strictEqual(config.status, 404)
      })
    )
  )

  it.live("refuses path traversal, raw and URL-encoded, with 400 and reads nothing outside", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const outside = path.join(path.dirname(h.routesDir), "secret.yml")
        fs.writeFileSync(outside, "secret: true\n")
        fs.symlinkSync(outside, path.join(h.routesDir, "link.yml"))
        const names = [
          "../secret.yml",
          "..%2Fsecret.yml",
          "%2e%2e%2fsecret.yml",
          "%252e%252e%252fsecret.yml",
          "..%5csecret.yml",
          encodeURIComponent(outside),
          "sub/..%2F..%2Fsecret.yml",
          "link.yml",
          ".hidden.yml",
          "a%00.yml"
        ]
        for (const name of names) {
          const reply = yield* request(`${h.baseUrl}/file/content?type=routes&filename=${name}`, { key: h.apiKey })
          assert.strictEqual(reply.status, 400, name)
          assert.strictEqual(reply.json.error.code, "invalid_argument", name)
          assert.notInclude(reply.text, "secret: true", name)
          const write = yield* sendYaml(`${h.baseUrl}/file/content?type=routes&filename=${name}`, h.apiKey, routes, {
            method: "PUT"
          })
          assert.strictEqual(write.status, 400, name)
        }
        assert.strictEqual(fs.readFileSync(outside, "utf8"), "secret: true\n")
      })
    )
  )

  it.live("writes a valid route file atomically, reloads, and announces config/reload", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "main.yml": routes } })
        const events = yield* openWs(`${h.wsUrl}/events?category=config`, { key: h.apiKey })
        const reply = yield* sendYaml(
          `${h.baseUrl}/file/content?type=routes&filename=main.yml`,
          h.apiKey,
          "app:\n  port: 9090\nnew:\n  port: 9091\n",
          { method: "PUT" }
        )
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.json, {
          message: "routes file main.yml written and applied",
          type: "routes",
          filename: "main.yml",
          bytes: 36
        })
        const reload = yield* events.until((e) => e.action === "reload")
        assert.deepStrictEqual(reload.data, { source: "routes", added: ["new"], removed: [], changed: ["app"] })
        const app = yield* request(`${h.baseUrl}/route/app`, { key: h.apiKey })
        assert.strictEqual(app.json.port.target, 9090)
        assert.deepStrictEqual(
          fs.readdirSync(h.routesDir).filter((n) => n.endsWith(".tmp")),
          []
        )
      })
    )
  )

  it.live("two writes at once are checked one after the other: the same alias in two new files passes once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const put = (file: string, port: number) =>
          sendYaml(`${h.baseUrl}/file/content?type=routes&filename=${file}`, h.apiKey, `app:\n  port: ${port}\n`, {
            method: "PUT"
          })
        const replies = yield* Effect.all([put("a.yml", 8081), put("b.yml", 8082)], { concurrency: 2 })
        assert.deepStrictEqual(replies.map((r) => r.status).sort(), [200, 422])
        const refused = replies.find((r) => r.status === 422)!
        assert.match(refused.json.error.details[0].message, /app/)
        // Only the accepted file is on disk: the routes are as valid as every write was told.
        assert.lengthOf(
          fs.readdirSync(h.routesDir).filter((n) => n.endsWith(".yml")),
          1
        )
      })
    )
  )

  it.live("refuses an invalid route file (422) or bad YAML (400), and leaves the file untouched", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "main.yml": routes, "other.yml": "taken:\n  port: 1\n" } })
        const invalid = yield* sendYaml(
          `${h.baseUrl}/file/content?type=routes&filename=main.yml`,
          h.apiKey,
          "app:\n  port: 99999\n",
          { method: "PUT" }
        )
        assert.strictEqual(invalid.status, 422)
        assert.strictEqual(invalid.json.error.details[0].line, 2)
        const duplicate = yield* sendYaml(
          `${h.baseUrl}/file/content?type=routes&filename=main.yml`,
          h.apiKey,
          "taken:\n  port: 2\n",
          { method: "PUT" }
        )
        assert.strictEqual(duplicate.status, 422, "an alias defined in another file is a conflict")
        const syntax = yield* sendYaml(
          `${h.baseUrl}/file/content?type=routes&filename=main.yml`,
          h.apiKey,
          "app: [\n",
          { method: "PUT" }
        )
        assert.strictEqual(syntax.status, 400)
        assert.strictEqual(fs.readFileSync(path.join(h.routesDir, "main.yml"), "utf8"), routes)
      })
    )
  )

  it.live("refuses a body that is not UTF-8 (400 naming the byte offset) or declares another charset (415)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "main.yml": routes } })
        const url = `${h.baseUrl}/file/content?type=routes&filename=main.yml`
        // "café" in Latin-1: 0xE9 is not UTF-8; then a truncated sequence, an overlong '/', and a surrogate.
        const latin1 = Uint8Array.from([...Buffer.from("app:\n  port: 8080\n# caf"), 0xe9, 0x0a])
        const bad = yield* request(url, { method: "PUT", key: h.apiKey, body: latin1, contentType: "application/yaml" })
        assert.strictEqual(bad.status, 400)
        assert.strictEqual(bad.json.error.code, "invalid_argument")
        assert.strictEqual(bad.json.error.message, "request body is not valid UTF-8: invalid byte 0xe9 at offset 23")
        for (const bytes of [
          [0xe2, 0x82],
          [0xc0, 0xaf],
          [0xed, 0xa0, 0x80],
          [0xf4, 0x90, 0x80, 0x80]
        ]) {
          const body = Uint8Array.from([...Buffer.from("a: 1\n# "), ...bytes])
          const reply = yield* request(url, { method: "PUT", key: h.apiKey, body, contentType: "application/yaml" })
          assert.strictEqual(reply.status, 400, JSON.stringify(bytes))
          assert.match(reply.json.error.message, / at offset 7$/)
        }
        const declared = yield* request(url, {
          method: "PUT",
          key: h.apiKey,
          body: "app:\n  port: 8080\n",
          contentType: "application/yaml; charset=iso-8859-1"
        })
        assert.strictEqual(declared.status, 415)
        assert.strictEqual(declared.json.error.code, "unsupported_media_type")
        assert.include(declared.json.error.message, "iso-8859-1")
        const utf8 = yield* request(url, {
          method: "PUT",
          key: h.apiKey,
          body: "app:\n  port: 8080\n# café ✓ 𝄞\n",
          contentType: "application/yaml; charset=UTF-8"
        })
        assert.strictEqual(utf8.status, 200, utf8.text)
        assert.strictEqual(
          fs.readFileSync(path.join(h.routesDir, "main.yml"), "utf8"),
          "app:\n  port: 8080\n# café ✓ 𝄞\n"
        )
        const validate = yield* request(`${h.baseUrl}/route/validate`, {
          method: "POST",
          key: h.apiKey,
          body: latin1,
          contentType: "text/plain"
        })
        assert.strictEqual(validate.status, 400)
      })
    )
  )

  it.live("never lists, reads or replaces what is not a regular file: a directory or a FIFO named *.yml", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "main.yml": routes } })
        fs.mkdirSync(path.join(h.routesDir, "dir.yml"))
        execFileSync("mkfifo", [path.join(h.routesDir, "pipe.yml")])
        const listed = yield* request(`${h.baseUrl}/file/list`, { key: h.apiKey })
        assert.deepStrictEqual(listed.json.routes, ["main.yml"])
        // Each read of the FIFO would hang forever (and four of them every file operation) if it were opened.
        const reads = yield* Effect.forEach(
          Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? "pipe.yml" : "dir.yml")),
          (name) => request(`${h.baseUrl}/file/content?type=routes&filename=${name}`, { key: h.apiKey }),
          { concurrency: "unbounded" }
        )
        for (const reply of reads) {
          assert.strictEqual(reply.status, 409)
          assert.strictEqual(reply.json.error.code, "failed_precondition")
          assert.strictEqual(reply.json.error.details[0].reason, "FileNotRegular")
        }
        assert.match(reads[0]!.json.error.message, /"pipe\.yml" is a named pipe \(FIFO\), not a regular file/)
        assert.match(reads[1]!.json.error.message, /"dir\.yml" is a directory, not a regular file/)
        for (const name of ["dir.yml", "pipe.yml"]) {
          const put = yield* sendYaml(`${h.baseUrl}/file/content?type=routes&filename=${name}`, h.apiKey, routes, {
            method: "PUT"
          })
          assert.strictEqual(put.status, 409, name)
        }
        assert.isTrue(fs.statSync(path.join(h.routesDir, "dir.yml")).isDirectory())
        assert.isTrue(fs.statSync(path.join(h.routesDir, "pipe.yml")).isFIFO())
        const ok = yield* request(`${h.baseUrl}/file/content?type=routes&filename=main.yml`, { key: h.apiKey })
        assert.strictEqual(ok.text, routes)
      })
    )
  )

  it.live("a file the file system refuses (a symlink loop) gets 503 with the reason, for reading and writing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "main.yml": routes } })
        fs.symlinkSync("loop.yml", path.join(h.routesDir, "loop.yml"))
        const url = `${h.baseUrl}/file/content?type=routes&filename=loop.yml`
        const read = yield* request(url, { key: h.apiKey })
        assert.strictEqual(read.status, 503, read.text)
        assert.strictEqual(read.json.error.code, "unavailable")
        assert.strictEqual(
          read.json.error.message,
          'reading of routes file "loop.yml" failed: too many levels of symbolic links (ELOOP)'
        )
        const written = yield* sendYaml(url, h.apiKey, "other:\n  port: 9090\n", { method: "PUT" })
        assert.strictEqual(written.status, 503, written.text)
        assert.match(written.json.error.message, /^writing of routes file "loop\.yml" failed: too many levels/)
        assert.notInclude(written.text, h.routesDir)
        // The other files are served and written as before.
        const main = `${h.baseUrl}/file/content?type=routes&filename=main.yml`
        assert.strictEqual((yield* sendYaml(main, h.apiKey, "app:\n  port: 8081\n", { method: "PUT" })).status, 200)
      })
    )
  )

  it.live("removes temp files left by an interrupted write when it starts", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({
          routeFiles: { "main.yml": routes, ".main.yml.0123456789ab.tmp": "half-written", ".keep.yml": "x: 1\n" }
        })
        assert.deepStrictEqual(fs.readdirSync(h.routesDir).sort(), [".keep.yml", "main.yml"])
      })
    )
  )

  it.live("validates the config file with key-named errors before writing it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const before = fs.readFileSync(h.configFile, "utf8")
        const bad = yield* sendYaml(
          `${h.baseUrl}/file/content?type=config&filename=gatehouse.yml`,
          h.apiKey,
          "events:\n  histroy: 5\n",
          { method: "PUT" }
        )
        assert.strictEqual(bad.status, 422)
        assert.include(bad.json.error.details[0].message, "did you mean `history`")
        assert.deepStrictEqual(bad.json.error.details[0].path, ["events", "histroy"])
        assert.strictEqual(fs.readFileSync(h.configFile, "utf8"), before)
        const good = yield* sendYaml(
          `${h.baseUrl}/file/content?type=config&filename=gatehouse.yml`,
          h.apiKey,
          "events:\n  history: 5\n",
          { method: "PUT" }
        )
        assert.strictEqual(good.status, 200)
        assert.include(good.json.message, "restart")
      })
    )
  )

  it.live("POST /file/validate checks a document without writing it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const ok = yield* sendYaml(`${h.baseUrl}/file/validate?type=routes`, h.apiKey, routes)
        assert.strictEqual(ok.status, 200)
        assert.deepStrictEqual([ok.json.valid, ok.json.type, ok.json.routes[0].alias], [true, "routes", "app"])
        const config = yield* sendYaml(`${h.baseUrl}/file/validate?type=config`, h.apiKey, "log: { level: loud }\n")
        assert.strictEqual(config.status, 422)
        const badType = yield* sendYaml(`${h.baseUrl}/file/validate?type=secrets`, h.apiKey, routes)
        assert.strictEqual(badType.status, 400)
        assert.deepStrictEqual(fs.readdirSync(h.routesDir), [])
      })
    )
  )
})
