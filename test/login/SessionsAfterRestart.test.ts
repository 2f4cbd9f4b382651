import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { hashPassword, loadConfig } from "@gatehouse-edge/core"
import { formatIssue } from "@gatehouse-edge/core/domain"
import { layerGatehouseServer } from "@gatehouse-edge/server"
import { Effect, Exit, Layer, Logger, Scope } from "effect"
import { CookieAgent, formOf } from "../support/CookieAgent.js"
import { freePort } from "../support/FreePort.js"
import { type OidcUser, oidcConfigYaml, startOidcProvider } from "../support/OidcProvider.js"
import { tempDir } from "../support/TempDir.js"

/*
 * A session carries the access the config the server runs with gives its holder now: the real server, restarted on
 * the same data directory and port with another `auth` section, judges the sessions of the first run again.
 */

/** A server on one directory and port that a test restarts with another config (stopped with the test's scope). */
const restartable = Effect.gen(function* () {
  const dir = yield* tempDir("gatehouse-sessions-restart-")
  const flags = { http: `127.0.0.1:${yield* freePort}`, grpc: `127.0.0.1:${yield* freePort}` }
  fs.mkdirSync(path.join(dir, "routes"))
  let running: Scope.Closeable | undefined
  const stop = Effect.suspend(() => (running === undefined ? Effect.void : Scope.close(running, Exit.void)))
  yield* Effect.addFinalizer(() => stop)
  const start = (configYaml: string) =>
    Effect.gen(function* () {
      yield* stop
      const configFile = path.join(dir, "gatehouse.yml")
      fs.writeFileSync(configFile, configYaml)
      const result = loadConfig({
        file: { path: configFile, text: configYaml },
        env: { GATEHOUSE_ROUTES_DIR: path.join(dir, "routes"), GATEHOUSE_DATA_DIR: path.join(dir, "data") },
        flags,
        cwd: dir
      })
      if (result._tag === "Invalid") return yield* Effect.die(new Error(result.issues.map(formatIssue).join("\n")))
      const server = layerGatehouseServer({
        config: result.config,
        sources: { env: {}, flags, cwd: dir },
        version: { version: "0.0.0-test", commit: "test" }
      }).pipe(Layer.provide(Logger.layer([])))
      const scope = yield* Scope.make()
      running = scope
      yield* Layer.buildWithScope(server, scope).pipe(Effect.orDie)
    })
  const origin = `http://${flags.http}`
  return { origin, baseUrl: `${origin}/api/v1`, start }
})

/** `GET /whoami` with exactly this session cookie. */
const whoami = (baseUrl: string, session: string) =>
  new CookieAgent().request(`${baseUrl}/whoami`, { headers: { cookie: `gatehouse_session=${session}` } })

describe("sessions after a restart under another auth config", () => {
  it.live("OIDC: a user no longer admitted is signed out (401); one whose group maps lower has the lower role", () =>
    Effect.gen(function* () {
      const server = yield* restartable
      const ada: OidcUser = { name: "ada", password: "ada-secret", groups: ["gatehouse-admins", "staff"] }
      const vic: OidcUser = { name: "vic", password: "vic-secret", groups: ["gatehouse-viewers"] }
      const provider = yield* startOidcProvider({ rpOrigin: server.origin, users: [ada, vic] })
      yield* server.start(
        oidcConfigYaml(
          provider,
          "allowed_groups: [gatehouse-admins, gatehouse-viewers]",
          "roles: { admin: [gatehouse-admins], viewer: [gatehouse-viewers] }"
        )
      )
      const signIn = (user: OidcUser) =>
        Effect.gen(function* () {
          const browser = new CookieAgent()
          const start = yield* browser.request(`${server.baseUrl}/auth/login`)
          const login = formOf(yield* browser.follow(start.location!))
          login.fields.set("username", user.name)
          login.fields.set("password", user.password)
          const signedIn = yield* browser.request(login.action, { form: login.fields })
          const consent = formOf(yield* browser.follow(signedIn.location!))
          const consented = yield* browser.request(consent.action, { form: consent.fields })
          const back = yield* browser.follow(consented.location!, (url) => url.origin === server.origin)
          const done = yield* browser.request(back.location!)
          assert.strictEqual(done.status, 302, done.text)
          return browser.cookie("gatehouse_session", server.origin)!
        })
      const adas = yield* signIn(ada)
      const vics = yield* signIn(vic)
      assert.deepStrictEqual((yield* whoami(server.baseUrl, adas)).json.roles, ["admin"])
      assert.deepStrictEqual((yield* whoami(server.baseUrl, vics)).json.roles, ["viewer"])

      // Only staff admitted now, and the admins' group maps to operator: the provider is not asked again.
      yield* server.start(
        oidcConfigYaml(provider, "allowed_groups: [staff]", "roles: { operator: [gatehouse-admins] }")
      )
      const lowered = yield* whoami(server.baseUrl, adas)
      assert.strictEqual(lowered.status, 200, lowered.text)
      assert.deepInclude(lowered.json, { subject: "oidc:ada", roles: ["operator"] })
      assert.notInclude(lowered.json.scopes, "admin")
      const ended = yield* whoami(server.baseUrl, vics)
      assert.strictEqual(ended.status, 401, ended.text)
      assert.include(ended.json.error.message, "oidc:vic may no longer sign in")
    }).pipe(Effect.scoped)
  )

  it.live("password: after the user's hash is rotated, a session signed in with the old password is 401", () =>
    Effect.gen(function* () {
      const server = yield* restartable
      const usersWith = (hash: string) => `auth:\n  users:\n    - { name: alice, password_hash: "${hash}" }\n`
      const leakedHash = yield* hashPassword("leaked-password")
      yield* server.start(usersWith(leakedHash))
      const signIn = Effect.gen(function* () {
        const browser = new CookieAgent()
        const login = yield* browser.request(`${server.baseUrl}/auth/login`, {
          body: JSON.stringify({ username: "alice", password: "leaked-password" }),
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(login.status, 200, login.text)
        return browser.cookie("gatehouse_session", server.origin)!
      })
      const attackers = yield* signIn
      const alices = yield* signIn

      // A restart that changes nothing of alice keeps her session. (The attacker's is left unused until the end:
      // what it was signed in with is what it was stored with, not anything it learnt at a later use.)
      yield* server.start(usersWith(leakedHash))
      assert.strictEqual((yield* whoami(server.baseUrl, alices)).status, 200)

      yield* server.start(usersWith(yield* hashPassword("fresh-password")))
      const ended = yield* whoami(server.baseUrl, attackers)
      assert.strictEqual(ended.status, 401, ended.text)
      assert.include(ended.json.error.message, "the password of user:alice has changed")
      assert.strictEqual((yield* whoami(server.baseUrl, alices)).status, 401)
    }).pipe(Effect.scoped)
  )
})
