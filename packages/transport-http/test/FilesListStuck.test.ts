import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { stuckDisk } from "../../../test/support/StuckDisk.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

describe("a file listing on a stuck disk", () => {
  it.live("answers 504 FileOperationTimedOut after its bound, and lists once the disk answers", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // A small bound on the live clock: the server's answer is what is tested, over a real connection.
        const h = yield* startHarness({
          routeFiles: { "a.yml": "app:\n  port: 8080\n" },
          fileTimeouts: { operationTimeout: "300 millis" }
        })
        const disk = yield* stuckDisk(yield* tempDir("gatehouse-disk-"))
        const list = request(`${h.baseUrl}/file/list`, { key: h.apiKey })
        disk.stick()
        const stuck = yield* list.pipe(Effect.timeout("20 seconds"))
        assert.strictEqual(stuck.status, 504, stuck.text)
        assert.strictEqual(stuck.json.error.code, "timeout")
        assert.strictEqual(stuck.json.error.details[0].reason, "FileOperationTimedOut")
        assert.strictEqual(stuck.json.error.message, "listing of the routes directory did not finish within 300 ms")
        yield* disk.release
        const listed = yield* list
        assert.strictEqual(listed.status, 200, listed.text)
        assert.deepStrictEqual(listed.json.routes, ["a.yml"])
      })
    )
  )
})
