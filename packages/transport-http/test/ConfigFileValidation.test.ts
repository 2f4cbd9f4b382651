import * as fs from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { sendYaml } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// The harness runs the server with `--http 127.0.0.1:0` and `GATEHOUSE_ROUTES_DIR` set: values in an edited
// config file that these replace must still be checked, since the file is what the next start without them reads.
describe("config file validation checks the file as a file", () => {
  it.live(
    "POST /file/validate: a bad value the running server's flag replaces is still a problem, at file:line:column",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* startHarness()
          const reply = yield* sendYaml(`${h.baseUrl}/file/validate?type=config`, h.apiKey, "http: { addr: nope }\n")
          assert.strictEqual(reply.status, 422, reply.text)
          assert.deepStrictEqual(reply.json.error.details, [
            {
              path: ["http", "addr"],
              message: 'expected host:port, e.g. 127.0.0.1:8888 or [::1]:8888, got "nope"',
              line: 1,
              column: 15,
              file: "gatehouse.yml"
            }
          ])
        })
      )
  )

  it.live("an unset ${NAME} is reported at its line and column, never labelled with a flag", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(
          `${h.baseUrl}/file/validate?type=config`,
          h.apiKey,
          'events: { history: 10 }\nhttp: { addr: "${GATEHOUSE_TEST_NEVER_SET}" }\n'
        )
        assert.strictEqual(reply.status, 422, reply.text)
        const [issue, ...others] = reply.json.error.details
        assert.deepStrictEqual(others, [])
        assert.deepInclude(issue, { path: ["http", "addr"], line: 2, column: 15, file: "gatehouse.yml" })
        assert.include(issue.message, "environment variable GATEHOUSE_TEST_NEVER_SET")
        assert.notProperty(issue, "label")
      })
    )
  )

  it.live("${NAME} is read from the server's environment", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(
          `${h.baseUrl}/file/validate?type=config`,
          h.apiKey,
          "routes_dir: ${GATEHOUSE_ROUTES_DIR}\n"
        )
        assert.strictEqual(reply.status, 200, reply.text)
        assert.deepStrictEqual(reply.json, { valid: true, type: "config" })
      })
    )
  )

  it.live("PUT /file/content refuses a file whose own value is bad, and leaves the file untouched", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const before = fs.readFileSync(h.configFile, "utf8")
        const reply = yield* sendYaml(
          `${h.baseUrl}/file/content?type=config&filename=gatehouse.yml`,
          h.apiKey,
          "routes_dir: ./routes\nhttp: { addr: 127.0.0.1:99999 }\n",
          { method: "PUT" }
        )
        assert.strictEqual(reply.status, 422, reply.text)
        assert.deepInclude(reply.json.error.details[0], { path: ["http", "addr"], line: 2, column: 15 })
        assert.strictEqual(fs.readFileSync(h.configFile, "utf8"), before)
      })
    )
  )
})
