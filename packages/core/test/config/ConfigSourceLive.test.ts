import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer, Logger } from "effect"
import { ConfigSource } from "../../src/config/ConfigSource.js"
import * as ConfigSourceLive from "../../src/config/ConfigSourceLive.js"
import { type ConfigSources, loadConfig } from "../../src/config/index.js"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Events } from "../../src/events/Events.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { tempDir } from "../store/TempDir.js"

const USERS = 'auth: { users: [{ name: admin, password_hash: "$2b$12$abcdefghijklmnopqrstuv" }] }\n'

/** A config source over a real file in `dir`, with real events, and every log line it writes collected. */
const start = (dir: string, text: string, sources: Omit<ConfigSources, "file" | "cwd">) =>
  Effect.gen(function* () {
    const file = path.join(dir, "gatehouse.yml")
    fs.writeFileSync(file, text)
    const all = { ...sources, cwd: dir }
    const loaded = loadConfig({ ...all, file: { path: file, text } })
    if (loaded._tag === "Invalid") return yield* Effect.die(new Error(loaded.issues.map(formatIssue).join("\n")))
    const layer = ConfigSourceLive.layer(loaded.config, all).pipe(
      Layer.provideMerge(EventBus.layer({ historyCap: 100 })),
      Layer.provide(EventRepository.layer),
      Layer.provide(StoreLive.layerMemory)
    )
    const context = yield* Layer.build(layer)
    const logs: Array<string> = []
    const logging = Logger.layer([Logger.map(Logger.formatJson, (line) => logs.push(line))])
    const logged = <A, E>(effect: Effect.Effect<A, E>) => Effect.provide(effect, logging)
    return { file, config: Context.get(context, ConfigSource), events: Context.get(context, Events), logs, logged }
  })

const secretConfig = (secret: string) =>
  `hypervisor:\n  clusters:\n    - { name: pve, url: https://h:8006, token_id: a@pam!b, secret: ${secret} }\n` +
  `auth: { oidc: { issuer: https://idp, client_id: gh, client_secret: oidc-${secret}, allowed_groups: [ops] } }\n`

describe("ConfigSourceLive", () => {
  it.effect("validate checks a candidate as a file first: the server's flags hide none of its values", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const { config } = yield* start(dir, USERS, { env: {}, flags: { http: "127.0.0.1:0" } })
        const result = yield* config.validate("http: { addr: nope }\n")
        assert.strictEqual(result._tag, "Invalid")
        if (result._tag === "Invalid") {
          assert.deepStrictEqual(result.issues, [
            {
              path: ["http", "addr"],
              message: 'expected host:port, e.g. 127.0.0.1:8888 or [::1]:8888, got "nope"',
              line: 1,
              column: 15,
              file: "gatehouse.yml"
            }
          ])
        }
      })
    )
  )

  it.effect("then as a restart would see it: a problem only the server's flags add is labelled with the flag", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const { config } = yield* start(dir, USERS, { env: {}, flags: { http: "0.0.0.0:8888" } })
        assert.strictEqual((yield* config.validate(`${USERS}events: { history: 5 }\n`))._tag, "Valid")
        // Valid as a file (it binds loopback by default), but the server runs with --http 0.0.0.0:8888.
        const result = yield* config.validate("events: { history: 5 }\n")
        assert.strictEqual(result._tag, "Invalid")
        if (result._tag === "Invalid") {
          assert.deepStrictEqual(result.issues.map(formatIssue), [
            "--http: http.addr: 0.0.0.0:8888 is not a loopback address, but no authentication is configured " +
              "(auth.users or auth.oidc): bind to 127.0.0.1 or configure authentication first"
          ])
        }
      })
    )
  )

  it.effect("a reload names a changed secret by its key; events and log lines never carry a secret", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const before = "11111111-aaaa-4bbb-8ccc-000000000001"
        const after = "22222222-aaaa-4bbb-8ccc-000000000002"
        const bad = "33333333-NOT-A-UUID"
        const { file, config, events, logs, logged } = yield* start(dir, secretConfig(before), { env: {} })

        fs.writeFileSync(file, secretConfig(after))
        assert.deepStrictEqual(yield* logged(config.reload), {
          _tag: "Reloaded",
          changed: ["auth.oidc.client_secret", "hypervisor.clusters"],
          restartRequired: ["auth.oidc.client_secret", "hypervisor.clusters"]
        })
        fs.writeFileSync(file, secretConfig(bad))
        const rejected = yield* logged(config.reload)
        assert.strictEqual(rejected._tag, "Rejected")

        const history = yield* events.history({ category: "config" })
        assert.deepStrictEqual(
          history.map((e) => e.action),
          ["reload", "error"]
        )
        assert.deepStrictEqual((history[0]!.data as { changed: unknown }).changed, [
          "auth.oidc.client_secret",
          "hypervisor.clusters"
        ])
        const issue = (history[1]!.data as { issues: ReadonlyArray<{ path: unknown; line?: number }> }).issues[0]!
        assert.deepStrictEqual([issue.path, issue.line], [["hypervisor", "clusters", 0, "secret"], 3])
        assert.strictEqual(logs.length, 2, logs.join("\n"))
        assert.include(logs[0], "hypervisor.clusters")
        assert.include(logs[1], "hypervisor.clusters.0.secret")
        for (const text of [JSON.stringify(history), ...logs]) {
          for (const secret of [before, after, bad]) assert.notInclude(text, secret)
        }
      })
    )
  )
})
