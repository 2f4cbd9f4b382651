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

/** The actions of the config events so far, oldest first. */
const actions = (events: Events["Service"]) =>
  Effect.map(events.history({ category: "config" }), (history) => history.map((e) => e.action))

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

  it.effect("a rejected file put right is announced with config/reload, though it matches what was applied", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const good = "events: { history: 10 }\n"
        const { file, config, events } = yield* start(dir, good, { env: {} })
        const recovered = { _tag: "Reloaded", changed: [], restartRequired: [] } as const

        // A bad edit, reverted.
        fs.writeFileSync(file, "events: { histroy: 10 }\n")
        assert.strictEqual((yield* config.reload)._tag, "Rejected")
        fs.writeFileSync(file, good)
        assert.deepStrictEqual(yield* config.reload, recovered)
        assert.deepStrictEqual(yield* actions(events), ["error", "reload"])
        const reloaded = (yield* events.history({ category: "config" }))[1]!
        assert.deepInclude(reloaded.data, { changed: [], restart_required: [] })

        // Said once: the next read of the same file says nothing.
        assert.deepStrictEqual(yield* config.reload, recovered)
        assert.deepStrictEqual(yield* actions(events), ["error", "reload"])

        // The file removed, then restored.
        fs.renameSync(file, `${file}.away`)
        assert.strictEqual((yield* config.reload)._tag, "Rejected")
        fs.renameSync(`${file}.away`, file)
        assert.deepStrictEqual(yield* config.reload, recovered)
        assert.deepStrictEqual(yield* actions(events), ["error", "reload", "error", "reload"])
      })
    )
  )

  it.effect("a secret written unquoted that breaks the YAML stays out of config/error and the log", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const password = "Tr0ub4dor-3-pve-PASSWORD"
        const secret = "5ec2e7aa-1111-2222-3333-444455556666"
        const cluster = "hypervisor:\n  clusters:\n    - name: pve\n      url: https://pve:8006\n"
        const broken = [
          `${cluster}      username: gatehouse@pve\n      password: *${password}\n`,
          `${cluster}      username: gatehouse@pve\n      password: |${password}\n`,
          `${cluster}      token_id: gatehouse@pve!monitor\n      tls: { insecure: true }}\n      secret: ${secret}\n`
        ]
        const { file, config, events, logs, logged } = yield* start(dir, USERS, { env: {} })
        for (const text of broken) {
          fs.writeFileSync(file, text)
          const outcome = yield* logged(config.reload)
          assert.strictEqual(outcome._tag, "Rejected", text)
          if (outcome._tag === "Rejected") assert.isNotEmpty(outcome.issues)
        }
        const history = yield* events.history({ category: "config" })
        assert.deepStrictEqual(
          history.map((e) => e.action),
          ["error", "error", "error"]
        )
        for (const text of [JSON.stringify(history), ...logs]) {
          assert.notInclude(text, password.slice(0, 8))
          assert.notInclude(text, secret.slice(0, 8))
        }
      })
    )
  )

  it.effect("a reload names a changed listen address by its key, not the parts it decodes to", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const acme = (port: number) =>
          "acme:\n  directory: https://acme.example/dir\n" +
          `  http01: { addr: 127.0.0.1:${port} }\n` +
          "  certificates: [{ name: www, domains: [www.example.com] }]\n"
        const text = (grpc: string, http: number, http01: number) =>
          `http: { addr: 127.0.0.1:${http} }\ngrpc: { addr: "${grpc}" }\n${acme(http01)}`
        const { file, config } = yield* start(dir, text("127.0.0.1:29012", 29011, 29080), { env: {} })
        fs.writeFileSync(file, text("[::1]:29013", 29011, 29080))
        assert.deepStrictEqual(yield* config.reload, {
          _tag: "Reloaded",
          changed: ["grpc.addr"],
          restartRequired: ["grpc.addr"]
        })
        fs.writeFileSync(file, text("[::1]:29013", 29014, 29081))
        const outcome = yield* config.reload
        assert.deepStrictEqual(outcome._tag === "Reloaded" ? outcome.changed : outcome, [
          "acme.http01.addr",
          "http.addr"
        ])
      })
    )
  )
})
