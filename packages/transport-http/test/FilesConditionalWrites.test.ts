import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

const base = "app:\n  port: 8080\n"
const etagOf = (bytes: string | Uint8Array) => `"${createHash("sha256").update(bytes).digest("hex")}"`

const harness = (routeFiles: Record<string, string> = { "a.yml": base }) =>
  Effect.gen(function* () {
    const h = yield* startHarness({ routeFiles })
    const url = (name: string, type = "routes") =>
      `${h.baseUrl}/file/content?type=${type}&filename=${encodeURIComponent(name)}`
    const get = (name: string, type = "routes") => request(url(name, type), { key: h.apiKey })
    const put = (name: string, body: string, headers: Record<string, string> = {}, type = "routes") =>
      request(url(name, type), { method: "PUT", key: h.apiKey, body, contentType: "application/yaml", headers })
    const onDisk = (name: string) => fs.readFileSync(path.join(h.routesDir, name), "utf8")
    return { h, get, put, onDisk }
  })

describe("conditional file writes (ETag, If-Match)", () => {
  it.live("a read answers the ETag of the file's bytes; a write with it goes ahead and answers the new one", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { h, get, put } = yield* harness()
        const read = yield* get("a.yml")
        assert.strictEqual(read.status, 200)
        assert.strictEqual(read.headers.get("etag"), etagOf(base))
        const edit = `${base}web:\n  port: 8081\n`
        const written = yield* put("a.yml", edit, { "If-Match": read.headers.get("etag")! })
        assert.strictEqual(written.status, 200, written.text)
        assert.strictEqual(written.headers.get("etag"), etagOf(edit))
        assert.strictEqual((yield* get("a.yml")).headers.get("etag"), etagOf(edit))
        // Of the bytes, not of the text decoded from them: a byte that is not UTF-8 still yields one version.
        const other = "cafe:\n  port: 8082\n"
        const bytes = Buffer.concat([Buffer.from("# caf"), Buffer.from([0xe9]), Buffer.from(`\n${other}`)])
        fs.writeFileSync(path.join(h.routesDir, "latin1.yml"), bytes)
        const latin1 = yield* get("latin1.yml")
        assert.strictEqual(latin1.headers.get("etag"), etagOf(bytes))
        const rewritten = yield* put("latin1.yml", other, { "If-Match": latin1.headers.get("etag")! })
        assert.strictEqual(rewritten.status, 200, rewritten.text)
      })
    )
  )

  it.live("two editors of one version: the second write is refused with 412 and the first edit stays", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { get, put, onDisk } = yield* harness()
        const etag = (yield* get("a.yml")).headers.get("etag")!
        const alice = `${base}alice:\n  port: 9001\n`
        assert.strictEqual((yield* put("a.yml", alice, { "If-Match": etag })).status, 200)
        const bob = yield* put("a.yml", `${base}bob:\n  port: 9002\n`, { "If-Match": etag })
        assert.strictEqual(bob.status, 412, bob.text)
        assert.strictEqual(bob.json.error.code, "precondition_failed")
        assert.strictEqual(bob.json.error.details[0].reason, "FilePreconditionFailed")
        assert.match(
          bob.json.error.message,
          /^routes file "a\.yml" was changed since it was read .*nothing was written$/
        )
        assert.strictEqual(onDisk("a.yml"), alice)
        // The config file is guarded the same way.
        const config = yield* get("gatehouse.yml", "config")
        const stale = yield* put("gatehouse.yml", "events: { history: 5 }\n", { "If-Match": '"0"' }, "config")
        assert.strictEqual(stale.status, 412)
        const fresh = yield* put(
          "gatehouse.yml",
          `${config.text}# x\n`,
          { "If-Match": config.headers.get("etag")! },
          "config"
        )
        assert.strictEqual(fresh.status, 200, fresh.text)
        // Without a condition a write goes ahead as it always did.
        assert.strictEqual((yield* put("a.yml", base)).status, 200)
        assert.strictEqual(onDisk("a.yml"), base)
      })
    )
  )

  it.live("If-Match: * needs the file to exist; If-None-Match: * only creates it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { h, put, onDisk } = yield* harness()
        const missing = yield* put("new.yml", "web:\n  port: 1\n", { "If-Match": "*" })
        assert.strictEqual(missing.status, 412)
        assert.match(missing.json.error.message, /does not exist/)
        assert.isFalse(fs.existsSync(path.join(h.routesDir, "new.yml")))
        const created = yield* put("new.yml", "web:\n  port: 1\n", { "If-None-Match": "*" })
        assert.strictEqual(created.status, 200, created.text)
        const again = yield* put("new.yml", "web:\n  port: 2\n", { "If-None-Match": "*" })
        assert.strictEqual(again.status, 412)
        assert.match(again.json.error.message, /already exists/)
        assert.strictEqual(onDisk("new.yml"), "web:\n  port: 1\n")
        assert.strictEqual((yield* put("new.yml", "web:\n  port: 3\n", { "If-Match": "*" })).status, 200)
      })
    )
  )

  it.live("a weak ETag never matches If-Match, a stale one fails before validation, a malformed one is a 400", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { get, put, onDisk } = yield* harness()
        const etag = (yield* get("a.yml")).headers.get("etag")!
        const weak = yield* put("a.yml", `${base}# weak\n`, { "If-Match": `W/${etag}` })
        assert.strictEqual(weak.status, 412)
        const listed = yield* put("a.yml", `${base}# listed\n`, { "If-Match": `"other", ${etag}` })
        assert.strictEqual(listed.status, 200, listed.text)
        const invalidAndStale = yield* put("a.yml", "app:\n  port: 99999\n", { "If-Match": etag })
        assert.strictEqual(invalidAndStale.status, 412, "the version is checked first")
        const malformed = yield* put("a.yml", base, { "If-Match": "no-quotes" })
        assert.strictEqual(malformed.status, 400)
        assert.strictEqual(malformed.json.error.code, "invalid_argument")
        assert.include(malformed.text, "if-match")
        assert.strictEqual(onDisk("a.yml"), `${base}# listed\n`)
      })
    )
  )
})
