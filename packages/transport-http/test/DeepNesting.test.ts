import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type DeepDocument, deepDocuments } from "../../../test/support/DeepYaml.js"
import { openWs, type Reply, sendYaml } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// The hardening issue: a 1 MiB body of nesting held the event loop ~8 s per request and answered "Maximum call
// stack size exceeded". Every YAML entry point of the API must answer a 400 naming the depth limit and where it
// was passed.
const documents = deepDocuments()

const assertDepthIssue = (issue: any, document: DeepDocument) => {
  assert.match(issue.message, /^document nests deeper than 64 levels/, document.name)
  assert.deepStrictEqual([issue.line, issue.column], [document.crossedAt.line, document.crossedAt.column])
}

const assertRefused = (reply: Reply, document: DeepDocument) => {
  assert.strictEqual(reply.status, 400, `${document.name}: ${reply.text.slice(0, 200)}`)
  assert.strictEqual(reply.json.error.code, "invalid_yaml")
  assert.match(reply.json.error.message, /^invalid YAML: document nests deeper than 64 levels/)
  assert.strictEqual(reply.json.error.details.length, 1)
  assertDepthIssue(reply.json.error.details[0], document)
}

describe("1 MiB of nesting on every YAML entry point of the API", () => {
  it.live("POST /route/validate answers 400 invalid_yaml", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        for (const document of documents) {
          assertRefused(yield* sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, document.text), document)
        }
      })
    )
  )

  it.live("the validate WebSocket answers a done frame carrying the issue", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const ws = yield* openWs(`${h.wsUrl}/route/validate`, { key: h.apiKey })
        for (const document of documents) {
          ws.send(document.text)
          const done = JSON.parse(yield* ws.next())
          assert.deepStrictEqual([done.done, done.valid, done.invalid, done.errors.length], [true, 0, 0, 1])
          assertDepthIssue(done.errors[0], document)
        }
      })
    )
  )

  it.live("POST /file/validate answers 400 invalid_yaml, for route files and the config file", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        for (const type of ["routes", "config"]) {
          for (const document of documents) {
            assertRefused(yield* sendYaml(`${h.baseUrl}/file/validate?type=${type}`, h.apiKey, document.text), document)
          }
        }
      })
    )
  )

  it.live("PUT /file/content answers 400 invalid_yaml and writes nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const config = fs.readFileSync(h.configFile, "utf8")
        for (const document of documents) {
          const route = yield* sendYaml(
            `${h.baseUrl}/file/content?type=routes&filename=deep.yml`,
            h.apiKey,
            document.text,
            { method: "PUT" }
          )
          assertRefused(route, document)
          const file = path.basename(h.configFile)
          const written = yield* sendYaml(
            `${h.baseUrl}/file/content?type=config&filename=${file}`,
            h.apiKey,
            document.text,
            {
              method: "PUT"
            }
          )
          assertRefused(written, document)
        }
        assert.isFalse(fs.existsSync(path.join(h.routesDir, "deep.yml")))
        assert.strictEqual(fs.readFileSync(h.configFile, "utf8"), config)
      })
    )
  )
})
