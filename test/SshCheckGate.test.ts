import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import type { AuthRequest, AuthRequestFilter } from "@gatehouse-edge/core/domain"
import {
  type AuthServiceClient,
  type AuthServiceEffectClient,
  authServiceEffectClient,
  authServicePromiseClient,
  makeAuthServiceClient
} from "@gatehouse-edge/transport-grpc/client"
import { Effect, Fiber, Option, Schedule, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { decide, recentApproval } from "../examples/ssh-check-gate/CheckGate.js"
import { type CheckScope, parseGateConfig } from "../examples/ssh-check-gate/GateConfig.js"
import { deniedExitStatus, startSshGate } from "../examples/ssh-check-gate/SshGate.js"
import { spawnServer, tsxLoader } from "./support/Cli.js"
import { requireTool } from "./support/e2e.js"
import { freePort } from "./support/FreePort.js"
import { runSsh } from "./support/SshClient.js"
import { parseableKeyPair } from "./support/SshKeys.js"
import { tempDir } from "./support/TempDir.js"
import { startTestServer, type TestServer } from "./support/TestServer.js"
import { waitFor } from "./support/WaitFor.js"
import { watchProcess } from "./support/WatchedProcess.js"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** Runs examples/ssh-check-gate/main.ts in a child `node`, as its README says. */
const runProgram = (args: ReadonlyArray<string>) =>
  watchProcess(() =>
    spawn(
      process.execPath,
      [
        "--conditions=@gatehouse-edge/source",
        "--import",
        tsxLoader,
        path.join(repoRoot, "examples/ssh-check-gate/main.ts"),
        ...args
      ],
      { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] }
    )
  )

/*
 * The SSH check gate of examples/ssh-check-gate, driven by the real OpenSSH client against a real Gatehouse server
 * (gRPC on loopback). Every verdict is given through the server's AuthService, as an operator would.
 */

/** Parses a gate config (a test's own text: a problem is a defect) and runs the gate for the scope; its port. */
const runGate = (yaml: string, file: string, client: AuthServiceEffectClient) =>
  Effect.gen(function* () {
    const config = parseGateConfig(yaml, file)
    if ("problems" in config) return yield* Effect.die(new Error(config.problems.join("\n")))
    const hostKey = parseableKeyPair().private
    const running = yield* Effect.acquireRelease(
      Effect.promise(() => startSshGate({ config, hostKey, client, log: () => {} })),
      (running) => Effect.promise(() => running.close())
    )
    return running.port
  })

const { skip } = requireTool("ssh")

const grpcClientOf = (server: TestServer, apiKey = server.apiKey) =>
  Effect.acquireRelease(
    Effect.sync(() => makeAuthServiceClient({ address: server.grpcAddress, apiKey, insecure: true })),
    (client: AuthServiceClient) => Effect.sync(() => client.close())
  )

/** The gate's own key, made as the README says: it may create and read auth requests, never decide them. */
const gateKeyOf = (server: TestServer, scope = "auth_requests:create") =>
  Effect.promise(async () => {
    const response = await fetch(`${server.baseUrl}/apikeys`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `ssh-gate-${scope.replace(":", "-")}`, scopes: [scope] })
    })
    if (response.status !== 201) throw new Error(`the gate's key: ${response.status} ${await response.text()}`)
    return ((await response.json()) as { readonly key: string }).key
  })

interface Fixture {
  readonly server: TestServer
  readonly dir: string
  /** The private key file ssh logs in with (authorized for `root` and `deploy`). */
  readonly identity: string
  readonly operator: ReturnType<typeof authServicePromiseClient>
  /** Starts a gate with the policy (YAML list) and destination name; returns its port. */
  readonly gate: (options: {
    readonly destination: string
    readonly policy: string
  }) => Effect.Effect<number, unknown, Scope.Scope>
  readonly sshChecks: () => Promise<ReadonlyArray<AuthRequest>>
}

const setUp = (serverConfig?: string): Effect.Effect<Fixture, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const server = yield* startTestServer(serverConfig === undefined ? {} : { configYaml: serverConfig })
    const dir = yield* tempDir("gatehouse-ssh-gate-")
    const identity = path.join(dir, "client_ed25519")
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", identity])
    fs.writeFileSync(path.join(dir, "authorized_keys"), fs.readFileSync(`${identity}.pub`))
    // The gate runs with a key that cannot approve the logins it holds; verdicts come from the operator (admin).
    const gateKey = yield* gateKeyOf(server)
    fs.writeFileSync(path.join(dir, "api.key"), gateKey)
    const operator = authServicePromiseClient(yield* grpcClientOf(server))
    const gateClient = authServiceEffectClient(yield* grpcClientOf(server, gateKey))
    const gate = (options: { readonly destination: string; readonly policy: string }) =>
      runGate(
        [
          "listen: 127.0.0.1:0",
          `destination: ${options.destination}`,
          "host_key: ./unused_host_key",
          "gatehouse:",
          `  grpc: ${server.grpcAddress}`,
          "  api_key_file: ./api.key",
          "users:",
          "  root: ./authorized_keys",
          "  deploy: ./authorized_keys",
          "  nobody: ./authorized_keys",
          "policy:",
          options.policy
        ].join("\n"),
        path.join(dir, `${options.destination}.yml`),
        gateClient
      )
    return {
      server,
      dir,
      identity,
      operator,
      gate,
      sshChecks: () => operator.list({ kind: "ssh_check" })
    }
  })

const checkRootPolicy = (extra = "") =>
  `  - { users: [root], sources: ["127.0.0.0/8"], action: check${extra} }\n  - { users: [deploy], action: accept }`

describe.skipIf(skip)("examples/ssh-check-gate with the OpenSSH client", () => {
  it.live(
    "holds a login with a banner naming the auth_id, runs the command once it is approved, and records the check",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const port = yield* f.gate({ destination: "web1", policy: checkRootPolicy() })
        const ssh = yield* runSsh({ port, user: "root", identity: f.identity, command: "echo held-then-run; exit 3" })
        const [, authId] = yield* ssh.stderrMatching(/request: +(ghreq_[A-Za-z0-9_-]{24})/)
        assert.include(ssh.stderr(), `gatehouse auth approve --auth-id ${authId}`)
        assert.include(ssh.stderr(), "root@web1 from 127.0.0.1")
        // Held: nothing ran yet.
        assert.strictEqual(ssh.stdout(), "")
        yield* Effect.promise(() => f.operator.approve(authId!))
        const done = yield* ssh.exit
        assert.strictEqual(done.code, 3, done.stderr)
        assert.strictEqual(done.stdout, "held-then-run\n")
        assert.include(done.stderr, "Gatehouse: approved by api-key:admin.")
        const stored = yield* Effect.promise(() => f.operator.get(authId!))
        assert.strictEqual(stored.kind, "ssh_check")
        assert.strictEqual(stored.state, "approved")
        assert.strictEqual(stored.decided_by, "api-key:admin")
        assert.deepStrictEqual(stored.ssh_check, { src: "127.0.0.1", dst: "web1", local_user: "root" })
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a recent approval for the same (src, dst, user) passes at once; another user or a rejected check does not",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const port = yield* f.gate({
          destination: "web1",
          policy: `${checkRootPolicy()}\n  - { users: [nobody], action: check }`
        })
        const first = yield* runSsh({ port, user: "root", identity: f.identity, command: "true" })
        const [, authId] = yield* first.stderrMatching(/request: +(ghreq_\S+)/)
        yield* Effect.promise(() => f.operator.approve(authId!))
        assert.strictEqual((yield* first.exit).code, 0)

        const again = yield* (yield* runSsh({ port, user: "root", identity: f.identity, command: "echo again" })).exit
        assert.strictEqual(again.code, 0, again.stderr)
        assert.strictEqual(again.stdout, "again\n")
        assert.include(again.stderr, `covered by ${authId} (approved by api-key:admin)`)
        assert.strictEqual((yield* Effect.promise(f.sshChecks)).length, 1, "no second request")

        // The approval was for root: `nobody` from the same source is held with a request of its own, and rejected.
        const marker = path.join(f.dir, "ran")
        const other = yield* runSsh({ port, user: "nobody", identity: f.identity, command: `touch ${marker}` })
        const [, otherId] = yield* other.stderrMatching(/request: +(ghreq_\S+)/)
        assert.notStrictEqual(otherId, authId)
        yield* Effect.promise(() => f.operator.reject(otherId!))
        const refused = yield* other.exit
        assert.strictEqual(refused.code, deniedExitStatus)
        assert.include(refused.stderr, `Gatehouse: access denied: request ${otherId} was rejected by api-key:admin.`)
        assert.isFalse(fs.existsSync(marker), "a rejected login runs nothing")

        // A rejection is not remembered as an approval: the next login asks again.
        const retry = yield* runSsh({ port, user: "nobody", identity: f.identity, command: "true" })
        const [, retryId] = yield* retry.stderrMatching(/request: +(ghreq_\S+)/)
        assert.notStrictEqual(retryId, otherId)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "check_scope: source lets one approval cover every destination of that source; the default scope asks per host",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const scoped = checkRootPolicy(", check_scope: source")
        const web1 = yield* f.gate({ destination: "web1", policy: scoped })
        const web2 = yield* f.gate({ destination: "web2", policy: scoped })
        const web3 = yield* f.gate({ destination: "web3", policy: checkRootPolicy() })

        const first = yield* runSsh({ port: web1, user: "root", identity: f.identity, command: "hostname >/dev/null" })
        const [, authId] = yield* first.stderrMatching(/request: +(ghreq_\S+)/)
        yield* Effect.promise(() => f.operator.approve(authId!))
        assert.strictEqual((yield* first.exit).code, 0)

        const second = yield* (yield* runSsh({ port: web2, user: "root", identity: f.identity, command: "echo web2" }))
          .exit
        assert.strictEqual(second.code, 0, second.stderr)
        assert.strictEqual(second.stdout, "web2\n")
        assert.include(second.stderr, `covered by ${authId}`)

        const third = yield* runSsh({ port: web3, user: "root", identity: f.identity, command: "true" })
        const [, thirdId] = yield* third.stderrMatching(/request: +(ghreq_\S+)/)
        assert.notStrictEqual(thirdId, authId)
        const checks = yield* Effect.promise(f.sshChecks)
        assert.deepStrictEqual(checks.map((r) => r.ssh_check?.dst).sort(), ["web1", "web3"])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "an unanswered check expires: the login is denied with a clear message and the command never runs",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp("auth_requests:\n  ttl: 1s\n")
        const port = yield* f.gate({ destination: "web1", policy: checkRootPolicy() })
        const marker = path.join(f.dir, "ran")
        const ssh = yield* runSsh({ port, user: "root", identity: f.identity, command: `touch ${marker}` })
        const [, authId] = yield* ssh.stderrMatching(/request: +(ghreq_\S+)/)
        const done = yield* ssh.exit
        assert.strictEqual(done.code, deniedExitStatus, done.stderr)
        assert.include(done.stderr, `Gatehouse: access denied: request ${authId} expired without a decision.`)
        assert.isFalse(fs.existsSync(marker))
        assert.strictEqual((yield* Effect.promise(() => f.operator.get(authId!))).state, "expired")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "the policy decides at login: accept runs at once without a request; no matching rule or a wrong key is refused",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const port = yield* f.gate({ destination: "web1", policy: checkRootPolicy() })
        const accepted = yield* (yield* runSsh({ port, user: "deploy", identity: f.identity, command: "echo deploy" }))
          .exit
        assert.strictEqual(accepted.code, 0, accepted.stderr)
        assert.strictEqual(accepted.stdout, "deploy\n")

        // `nobody` is a known user but no rule admits it; `stranger` is not a user of this gate.
        for (const user of ["nobody", "stranger"]) {
          const refused = yield* (yield* runSsh({ port, user, identity: f.identity, command: "true" })).exit
          assert.strictEqual(refused.code, 255)
          assert.include(refused.stderr, "Permission denied (publickey)")
        }

        const otherKey = path.join(f.dir, "other_ed25519")
        execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", otherKey])
        const wrongKey = yield* (yield* runSsh({ port, user: "root", identity: otherKey, command: "true" })).exit
        assert.strictEqual(wrongKey.code, 255)
        assert.include(wrongKey.stderr, "Permission denied (publickey)")
        assert.deepStrictEqual(yield* Effect.promise(f.sshChecks), [], "refused logins create no request")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a user who gives up while held leaves the request open; approving it later lets the next login in at once",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const port = yield* f.gate({ destination: "web1", policy: checkRootPolicy() })
        const held = yield* runSsh({ port, user: "root", identity: f.identity, command: "true" })
        const [, authId] = yield* held.stderrMatching(/request: +(ghreq_\S+)/)
        yield* held.signal("SIGINT")
        yield* held.exit
        assert.strictEqual((yield* Effect.promise(() => f.operator.get(authId!))).state, "pending")
        yield* Effect.promise(() => f.operator.approve(authId!))
        const next = yield* (yield* runSsh({ port, user: "root", identity: f.identity, command: "echo in" })).exit
        assert.strictEqual(next.code, 0, next.stderr)
        assert.strictEqual(next.stdout, "in\n")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "fails closed: when Gatehouse cannot be reached, a checked login is denied, the user not told where it is",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const unreachable = authServiceEffectClient(
          yield* Effect.acquireRelease(
            // A port nothing listens on: the server's HTTP port speaks no gRPC, so use a closed one.
            Effect.sync(() =>
              makeAuthServiceClient({ address: "127.0.0.1:1", apiKey: f.server.apiKey, insecure: true })
            ),
            (client) => Effect.sync(() => client.close())
          )
        )
        const port = yield* runGate(
          `listen: 127.0.0.1:0\ndestination: web1\nhost_key: k\ngatehouse: { grpc: "127.0.0.1:1", api_key_file: api.key }\nusers: { root: ./authorized_keys, deploy: ./authorized_keys }\npolicy:\n${checkRootPolicy()}\n`,
          path.join(f.dir, "gate.yml"),
          unreachable
        )
        const done = yield* (yield* runSsh({ port, user: "root", identity: f.identity, command: "true" })).exit
        assert.strictEqual(done.code, deniedExitStatus)
        assert.include(
          done.stderr,
          "Gatehouse: access denied: the approval service could not be reached; try again later."
        )
        assert.notInclude(done.stderr, "127.0.0.1:1")
      }).pipe(Effect.scoped),
    60_000
  )
  it.live(
    "a gate whose key may not ask denies the login and says to tell the administrator, not to retry",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        // A key that may read auth requests but not create them: the server refuses with PERMISSION_DENIED.
        const readOnly = authServiceEffectClient(
          yield* grpcClientOf(f.server, yield* gateKeyOf(f.server, "auth_requests:read"))
        )
        const port = yield* runGate(
          `listen: 127.0.0.1:0\ndestination: web1\nhost_key: k\ngatehouse: { grpc: "${f.server.grpcAddress}", api_key_file: api.key }\nusers: { root: ./authorized_keys, deploy: ./authorized_keys }\npolicy:\n${checkRootPolicy()}\n`,
          path.join(f.dir, "gate.yml"),
          readOnly
        )
        const done = yield* (yield* runSsh({ port, user: "root", identity: f.identity, command: "true" })).exit
        assert.strictEqual(done.code, deniedExitStatus)
        assert.include(
          done.stderr,
          "Gatehouse: access denied: the approval service refused this gate's credentials; tell the administrator."
        )
      }).pipe(Effect.scoped),
    60_000
  )
})

describe.skipIf(skip)("examples/ssh-check-gate across a server restart", () => {
  // SIGKILL drops the connection; SIGTERM ends the gate's watch first, with UNAVAILABLE and the machine code
  // `shutting_down`: both are a server going away, and the request outlives either.
  it.live.each(["SIGKILL", "SIGTERM"] as const)(
    "a held login survives the server being stopped with %s: the gate reconnects and gets the verdict given after the restart",
    (signal) =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-ssh-gate-kill-")
        const data = path.join(dir, "data")
        const grpc = `127.0.0.1:${yield* freePort}`
        const serve = ["--data", data, "--http", "127.0.0.1:0", "--grpc", grpc]
        const first = yield* spawnServer(serve, { cwd: dir })
        const identity = path.join(dir, "client_ed25519")
        execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", identity])
        fs.copyFileSync(`${identity}.pub`, path.join(dir, "authorized_keys"))
        const apiKey = fs.readFileSync(path.join(data, "admin.key"), "utf8").trim()
        const connect = Effect.acquireRelease(
          Effect.sync(() => makeAuthServiceClient({ address: grpc, apiKey, insecure: true })),
          (client) => Effect.sync(() => client.close())
        )
        const gatePort = yield* runGate(
          `listen: 127.0.0.1:0\ndestination: web1\nhost_key: k\ngatehouse: { grpc: "${grpc}", api_key_file: data/admin.key }\nusers: { root: ./authorized_keys }\npolicy:\n  - { users: [root], action: check }\n`,
          path.join(dir, "gate.yml"),
          authServiceEffectClient(yield* connect)
        )
        const ssh = yield* runSsh({ port: gatePort, user: "root", identity, command: "echo after-restart" })
        const [, authId] = yield* ssh.stderrMatching(/request: +(ghreq_\S+)/)
        first.child.kill(signal)
        yield* Effect.promise(() => first.exited)

        yield* spawnServer(serve, { cwd: dir })
        // grpc-js shares the subchannel with the gate's client, which may still be backing off from the dead
        // server: retry while it reports UNAVAILABLE (bounded), as any client of a restarting server must.
        const operator = authServiceEffectClient(yield* connect)
        yield* operator.approve(authId!).pipe(
          Effect.retry({
            schedule: Schedule.spaced("100 millis"),
            times: 200,
            while: (error) => error.code === "unavailable"
          })
        )
        const done = yield* ssh.exit
        assert.strictEqual(done.code, 0, done.stderr)
        assert.strictEqual(done.stdout, "after-restart\n")
        assert.include(done.stderr, "Gatehouse: approved by api-key:admin.")
      }).pipe(Effect.scoped),
    90_000
  )
})

describe("examples/ssh-check-gate: the check period", () => {
  it.live("an approval covers later logins for check_period after its decision, and not a millisecond longer", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const operator = authServicePromiseClient(yield* grpcClientOf(server))
      const client = authServiceEffectClient(yield* grpcClientOf(server))
      const request = yield* Effect.promise(() =>
        operator.create({ kind: "ssh_check", ssh_check: { src: "10.0.0.5", dst: "web1", local_user: "root" } })
      )
      yield* Effect.promise(() => operator.approve(request.auth_id))
      const decidedAt = Date.parse((yield* Effect.promise(() => operator.get(request.auth_id))).decided_at!)
      const rule = {
        sources: undefined,
        users: undefined,
        destinations: undefined,
        action: "check" as const,
        checkPeriodMs: 60 * 60 * 1000,
        checkScope: "source_destination" as const
      }
      const login = { src: "10.0.0.5", dst: "web1", localUser: "root" }
      const coveredAt = (at: number, overrides: Partial<typeof login> = {}, scope: CheckScope = rule.checkScope) =>
        Effect.gen(function* () {
          yield* TestClock.setTime(at)
          const found = yield* recentApproval(client, { ...login, ...overrides }, { ...rule, checkScope: scope })
          return Option.map(found, (r) => r.auth_id)
        }).pipe(Effect.provide(TestClock.layer()))
      assert.deepStrictEqual(yield* coveredAt(decidedAt + rule.checkPeriodMs), Option.some(request.auth_id))
      assert.deepStrictEqual(yield* coveredAt(decidedAt + rule.checkPeriodMs + 1), Option.none())
      assert.deepStrictEqual(yield* coveredAt(decidedAt, { dst: "web2" }), Option.none())
      assert.deepStrictEqual(yield* coveredAt(decidedAt, { dst: "web2" }, "source"), Option.some(request.auth_id))
      assert.deepStrictEqual(yield* coveredAt(decidedAt, { src: "10.0.0.6" }, "source"), Option.none())
      assert.deepStrictEqual(yield* coveredAt(decidedAt, { localUser: "admin" }, "source"), Option.none())
    }).pipe(Effect.scoped)
  )
})

describe("examples/ssh-check-gate: the wait for a verdict", () => {
  it.live(
    "is the request's lifetime on the gate's own clock: a gate whose clock runs an hour ahead of the server still waits",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const operator = authServicePromiseClient(yield* grpcClientOf(server))
        const client = authServiceEffectClient(yield* grpcClientOf(server))
        const rule = {
          sources: undefined,
          users: undefined,
          destinations: undefined,
          action: "check" as const,
          checkPeriodMs: 60 * 60 * 1000,
          checkScope: "source_destination" as const
        }
        const login = { src: "10.0.0.7", dst: "db1", localUser: "root" }
        const verdict = yield* Effect.gen(function* () {
          // The server's timestamps are an hour behind the gate's clock; the request lives 15 minutes.
          yield* TestClock.setTime(Date.now() + 60 * 60 * 1000)
          const waiting = yield* Effect.forkChild(decide(client, login, rule, () => {}))
          // Watching (the server holds its watch), so the wait's deadline is set.
          yield* waitFor(server.authRequestWaiters, (n) => n === 1, "the gate's watch")
          // Past the 30 s a wait measured from the server's expiry would have left, within the 45 s the watch may
          // be silent: only the wait's own deadline could end it here.
          yield* TestClock.adjust("40 seconds")
          const [pending] = yield* Effect.promise(() => operator.list({ kind: "ssh_check", state: "pending" }))
          yield* Effect.promise(() => operator.approve(pending!.auth_id))
          return yield* Fiber.join(waiting)
        }).pipe(Effect.provide(TestClock.layer()))
        assert.deepStrictEqual(verdict, { _tag: "Approved", message: "Gatehouse: approved by api-key:admin." })
      }).pipe(Effect.scoped),
    60_000
  )
})

describe("examples/ssh-check-gate: finding a recent approval in a long history", () => {
  it.live(
    "one filtered list call, one row back: found past more approvals than a default page holds",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const client = authServiceEffectClient(yield* grpcClientOf(server))
        const approve = (src: string, dst: string, local_user: string) =>
          Effect.flatMap(client.create({ kind: "ssh_check", ssh_check: { src, dst, local_user } }), (request) =>
            Effect.as(client.approve(request.auth_id), request.auth_id)
          )
        const target = yield* approve("10.0.0.5", "web1", "root")
        // Newer than the target and more than a default page (1000): listing every approval, the gate's first
        // page would hold none for this login. Other sources, other users, another host of the same login.
        yield* Effect.forEach(
          Array.from({ length: 1000 }, (_, i) => i),
          (i) => approve(i % 3 === 0 ? "10.0.0.5" : `10.1.${i % 250}.9`, i % 2 === 0 ? "web1" : "web2", "admin"),
          { concurrency: 16, discard: true }
        )
        const otherHost = yield* approve("10.0.0.5", "web2", "root")
        const calls: Array<{ readonly filter: AuthRequestFilter; readonly rows: number }> = []
        const spy: AuthServiceEffectClient = {
          ...client,
          list: (filter = {}) =>
            Effect.tap(client.list(filter), (rows) => Effect.sync(() => calls.push({ filter, rows: rows.length })))
        }
        const rule = {
          sources: undefined,
          users: undefined,
          destinations: undefined,
          action: "check" as const,
          checkPeriodMs: 12 * 60 * 60 * 1000,
          checkScope: "source_destination" as const
        }
        const login = { src: "10.0.0.5", dst: "web1", localUser: "root" }
        const found = yield* recentApproval(spy, login, rule)
        assert.deepStrictEqual(
          Option.map(found, (r) => r.auth_id),
          Option.some(target)
        )
        assert.strictEqual(calls.length, 1)
        assert.deepInclude(calls[0]!.filter, {
          state: "approved",
          kind: "ssh_check",
          src: "10.0.0.5",
          dst: "web1",
          local_user: "root",
          limit: 1
        })
        assert.isString(calls[0]!.filter.decided_after)
        assert.strictEqual(calls[0]!.rows, 1)
        // check_scope source: any host of the source, so the newest approval of this login, on web2.
        const anyHost = yield* recentApproval(spy, login, { ...rule, checkScope: "source" })
        assert.deepStrictEqual(
          Option.map(anyHost, (r) => r.auth_id),
          Option.some(otherHost)
        )
        assert.notProperty(calls[1]!.filter, "dst")
        assert.strictEqual(calls[1]!.rows, 1)

        // A server that predates the filters ignores them and answers with whatever approvals it has: none of
        // them covers a source that was never approved, so that login must still be held.
        const oldServer: AuthServiceEffectClient = {
          ...client,
          list: (filter = {}) => client.list({ state: filter.state, kind: filter.kind })
        }
        const stranger = yield* recentApproval(oldServer, { ...login, src: "10.9.9.9" }, rule)
        assert.isTrue(Option.isNone(stranger))
      }).pipe(Effect.scoped),
    120_000
  )
})

describe.skipIf(skip)("examples/ssh-check-gate/main.ts, the runnable program", () => {
  it.live(
    "reports a broken config with line and column (exit 2); runs, creates its host key, serves logins, stops on SIGTERM",
    () =>
      Effect.gen(function* () {
        const f = yield* setUp()
        const broken = path.join(f.dir, "broken.yml")
        fs.writeFileSync(broken, "host_key: k\ngatehouse: {}\nusers: {}\npolicy:\n  - action: maybe\n")
        const refused = yield* runProgram(["--config", broken]).pipe(Effect.flatMap((p) => p.exit))
        assert.strictEqual(refused.code, 2)
        assert.match(refused.stderr, /broken\.yml:5:13: policy\.0\.action: `maybe` is not one of/)

        const config = path.join(f.dir, "gate.yml")
        fs.writeFileSync(
          config,
          [
            "listen: 127.0.0.1:0",
            "destination: web9",
            "host_key: ./gate_host",
            `gatehouse: { grpc: "${f.server.grpcAddress}", api_key_file: ./api.key }`,
            "users: { root: ./authorized_keys, deploy: ./authorized_keys }",
            "policy:",
            checkRootPolicy()
          ].join("\n")
        )
        const program = yield* runProgram(["--config", config])
        const [, port] = yield* program.stdoutMatching(
          /listening on 127\.0\.0\.1:(\d+) as destination web9 \(host key SHA256:/
        )
        assert.strictEqual(fs.statSync(path.join(f.dir, "gate_host")).mode & 0o777, 0o600)
        const ssh = yield* runSsh({
          port: Number(port),
          user: "root",
          identity: f.identity,
          command: "echo via-program"
        })
        const [, authId] = yield* ssh.stderrMatching(/request: +(ghreq_\S+)/)
        yield* Effect.promise(() => f.operator.approve(authId!))
        const done = yield* ssh.exit
        assert.strictEqual(done.code, 0, done.stderr)
        assert.strictEqual(done.stdout, "via-program\n")
        yield* program.stdoutMatching(/root@web9 from 127\.0\.0\.1 \(check\): approved/)
        yield* program.signal("SIGTERM")
        const stopped = yield* program.exit
        assert.strictEqual(stopped.code, 0, stopped.stderr)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a frozen Gatehouse (connected, never answering) fails a checked login closed after gatehouse.call_timeout",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-ssh-gate-frozen-")
        const data = path.join(dir, "data")
        const server = yield* spawnServer(["--data", data, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"], {
          cwd: dir
        })
        const identity = path.join(dir, "client_ed25519")
        execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", identity])
        fs.copyFileSync(`${identity}.pub`, path.join(dir, "authorized_keys"))
        const config = path.join(dir, "gate.yml")
        fs.writeFileSync(
          config,
          [
            "listen: 127.0.0.1:0",
            "destination: web1",
            "host_key: ./gate_host",
            `gatehouse: { grpc: "${server.grpcAddress}", api_key_file: data/admin.key, call_timeout: 2s }`,
            "users: { root: ./authorized_keys }",
            "policy:",
            "  - { users: [root], action: check }"
          ].join("\n")
        )
        const program = yield* runProgram(["--config", config])
        const [, port] = yield* program.stdoutMatching(/listening on 127\.0\.0\.1:(\d+) /)
        // One login decided first: the gate's connection to the server is up, as it is on a gate in service.
        const apiKey = fs.readFileSync(path.join(data, "admin.key"), "utf8").trim()
        const operator = authServicePromiseClient(
          yield* Effect.acquireRelease(
            Effect.sync(() => makeAuthServiceClient({ address: server.grpcAddress, apiKey, insecure: true })),
            (client) => Effect.sync(() => client.close())
          )
        )
        const first = yield* runSsh({ port: Number(port), user: "root", identity, command: "true" })
        const [, authId] = yield* first.stderrMatching(/request: +(ghreq_\S+)/)
        yield* Effect.promise(() => operator.approve(authId!))
        assert.strictEqual((yield* first.exit).code, 0)

        // Frozen: its sockets stay open and nothing answers, as a stopped process or a host gone without a reset.
        yield* Effect.acquireRelease(
          Effect.sync(() => server.child.kill("SIGSTOP")),
          () => Effect.sync(() => server.child.kill("SIGCONT"))
        )
        const started = Date.now()
        const held = yield* runSsh({ port: Number(port), user: "root", identity, command: "echo ran" })
        const done = yield* held.exit.pipe(
          Effect.timeoutOrElse({
            duration: "15 seconds",
            orElse: () => Effect.die(new Error(`still held 15 s after the server froze: ${held.stderr()}`))
          })
        )
        assert.strictEqual(done.code, deniedExitStatus, done.stderr)
        assert.include(done.stderr, "Gatehouse: access denied: the approval service could not be reached")
        assert.strictEqual(done.stdout, "")
        assert.isAtMost(Date.now() - started, 15_000)
        yield* program.stdoutMatching(
          /root@web1 from 127\.0\.0\.1 \(check\): denied \(DEADLINE_EXCEEDED: no answer within 2 s\)/
        )
      }).pipe(Effect.scoped),
    90_000
  )
})
