import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { stuckDisk } from "../../../test/support/StuckDisk.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

const base = "app:\n  port: 8080\n"

describe("file writes on a stuck disk", () => {
  it.live("the stuck write answers 504, the one behind it 503 FileWriteBusy, each after its bound", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // Small bounds on the live clock: the server's answers are what is tested, over a real connection.
        const h = yield* startHarness({
          routeFiles: { "a.yml": base },
          fileTimeouts: { lockTimeout: "300 millis", operationTimeout: "300 millis" }
        })
        const disk = yield* stuckDisk(yield* tempDir("gatehouse-disk-"))
        const put = (name: string, body: string) =>
          request(`${h.baseUrl}/file/content?type=routes&filename=${name}`, {
            method: "PUT",
            key: h.apiKey,
            body,
            contentType: "application/yaml"
          })
        disk.stick()
        // Whichever takes the lock first is the stuck one; both must answer, long before the test's deadline.
        const replies = yield* Effect.all([put("a.yml", `${base}# one\n`), put("b.yml", "web:\n  port: 8081\n")], {
          concurrency: 2
        }).pipe(Effect.timeout("20 seconds"))
        const stuck = replies.find((reply) => reply.status === 504)
        const busy = replies.find((reply) => reply.status === 503)
        assert.deepStrictEqual(replies.map((reply) => reply.status).sort(), [503, 504], JSON.stringify(replies))
        assert.strictEqual(stuck?.json.error.details[0].reason, "FileOperationTimedOut")
        assert.strictEqual(busy?.json.error.code, "unavailable")
        assert.strictEqual(busy?.json.error.details[0].reason, "FileWriteBusy")
        assert.match(
          busy?.json.error.message,
          /^routes file "[ab]\.yml" was not written: another file write has not finished after 300 ms; try again later$/
        )
        assert.strictEqual(fs.readFileSync(path.join(h.routesDir, "a.yml"), "utf8"), base)
        assert.isFalse(fs.existsSync(path.join(h.routesDir, "b.yml")))
        // The disk answers again: so does the next write.
        yield* disk.release
        const after = yield* put("a.yml", `${base}# after\n`)
        assert.strictEqual(after.status, 200, after.text)
        assert.strictEqual(fs.readFileSync(path.join(h.routesDir, "a.yml"), "utf8"), `${base}# after\n`)
      })
    )
  )
})
