import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { authServiceEffectClient, makeAuthServiceClient } from "@gatehouse-edge/transport-grpc/client"
import { Effect, Fiber, Stream } from "effect"
import { runCli, spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"

const sshCheck = { kind: "ssh_check", ssh_check: { src: "127.0.0.1", dst: "db1", local_user: "root" } } as const

const clientFor = (grpcAddress: string, dataDir: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      makeAuthServiceClient({
        address: grpcAddress,
        apiKey: fs.readFileSync(path.join(dataDir, "admin.key"), "utf8").trim(),
        insecure: true
      })
    ),
    (client) => Effect.sync(() => client.close())
  ).pipe(Effect.map(authServiceEffectClient))

describe("auth requests in the running server", () => {
  it.live(
    "the CLI approves, rejects, registers, lists and watches over gRPC, with text or --json",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-auth-cli-")
        const data = path.join(dir, "data")
        const server = yield* spawnServer(["--data", data, "--http", "127.0.0.1:0"], { cwd: dir })
        const client = yield* clientFor(server.grpcAddress, data)
        const cli = (...args: Array<string>) =>
          runCli([...args, "--data", data, "--grpc", server.grpcAddress], { cwd: dir })

        const created = yield* client.create(sshCheck)
        const approved = yield* cli("auth", "approve", "--auth-id", created.auth_id)
        assert.strictEqual(approved.code, 0, approved.stderr)
        assert.match(
          approved.stdout,
          new RegExp(`^${created.auth_id}  ssh_check +approved +root@db1 from 127\\.0\\.0\\.1  by api-key:admin at `)
        )
        const conflict = yield* cli("auth", "reject", "--auth-id", created.auth_id)
        assert.strictEqual(conflict.code, 1)
        assert.strictEqual(conflict.stderr.trim(), "gatehouse: auth request already approved (FAILED_PRECONDITION)")
        const malformed = yield* cli("auth", "approve", "--auth-id", "nope")
        assert.strictEqual(
          malformed.stderr.trim(),
          "gatehouse: auth_id: auth_id must start with ghreq_ (INVALID_ARGUMENT)"
        )

        const user = yield* cli("users", "create", "alice", "--email", "alice@example.test", "--json")
        assert.strictEqual(user.code, 0, user.stderr)
        assert.deepInclude(JSON.parse(user.stdout), { id: 1, name: "alice", email: "alice@example.test" })
        const registration = yield* client.create({
          kind: "registration",
          registration: { machine_key: "m1", node_key: "n1", hostname: "laptop" }
        })
        const registered = yield* cli("auth", "register", "--auth-id", registration.auth_id, "--user", "alice")
        assert.strictEqual(registered.code, 0, registered.stderr)
        assert.include(registered.stdout, "laptop  100.64.0.1, fd7a:115c:a1e0::1  user=alice")
        const nodes = yield* cli("nodes", "list", "--json")
        assert.deepStrictEqual(
          JSON.parse(nodes.stdout).map((n: { ip_addresses: Array<string> }) => n.ip_addresses),
          [["100.64.0.1", "fd7a:115c:a1e0::1"]]
        )
        const pending = yield* client.create(sshCheck)
        const listed = yield* cli("auth", "list", "--state", "pending", "--json")
        assert.deepStrictEqual(
          JSON.parse(listed.stdout).map((r: { auth_id: string }) => r.auth_id),
          [pending.auth_id]
        )
        // `auth watch` prints the state (pending, if it connected before the verdict), then the verdict, and exits.
        const watching = yield* Effect.forkChild(cli("auth", "watch", pending.auth_id, "--json"))
        yield* client.reject(pending.auth_id)
        const watched = yield* Fiber.join(watching)
        assert.strictEqual(watched.code, 0, watched.stderr)
        const states = watched.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).state)
        assert.strictEqual(states.at(-1), "rejected")

        // A page at a time: where the next page starts goes to stderr; --all follows every page of the filtered list.
        const paged = yield* cli("auth", "list", "--kind", "ssh_check", "--limit", "1")
        assert.strictEqual(paged.code, 0, paged.stderr)
        assert.match(
          paged.stdout,
          new RegExp(`^${pending.auth_id}  ssh_check +rejected +root@db1 from 127\\.0\\.0\\.1 `)
        )
        assert.strictEqual(paged.stdout.trim().split("\n").length, 1)
        assert.strictEqual(
          paged.stderr.trim(),
          `more requests follow: add --before ${pending.auth_id} for the next page, or --all`
        )
        const filters = ["--src", "127.0.0.1", "--local-user", "root"]
        const everything = yield* cli("auth", "list", ...filters, "--limit", "1", "--all", "--json")
        assert.deepStrictEqual(
          JSON.parse(everything.stdout).map((r: { auth_id: string }) => r.auth_id),
          [pending.auth_id, created.auth_id]
        )

        // Flags the server would refuse are refused before anything is sent, named as the user typed them.
        const refused = yield* cli("auth", "list", "--limit", "0", "--before", "ghreq_x", "--decided-after", "1")
        assert.strictEqual(refused.code, 1)
        assert.deepStrictEqual(refused.stderr.trim().split("\n"), [
          "gatehouse: --limit: must be a whole number from 1 to 1000",
          "gatehouse: --before: must be an auth id (ghreq_…), the last of the page before",
          "gatehouse: --decided-after: must be an RFC 3339 time with a zone, such as 2026-01-02T03:04:05Z"
        ])

        const unreachable = yield* runCli(["auth", "list", "--data", data, "--grpc", "127.0.0.1:1"], { cwd: dir })
        assert.strictEqual(unreachable.code, 1)
        assert.match(unreachable.stderr, /^gatehouse: cannot reach the gRPC API at 127\.0\.0\.1:1: /)
        yield* server.stop()
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "SIGKILL with requests pending and waiters connected loses nothing; reconnecting waiters get the verdict",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-auth-kill-")
        const data = path.join(dir, "data")
        const first = yield* spawnServer(["--data", data, "--http", "127.0.0.1:0"], { cwd: dir })
        const before = yield* clientFor(first.grpcAddress, data)
        const approved = yield* before.create(sshCheck)
        yield* before.approve(approved.auth_id)
        const pending = yield* before.create(sshCheck)
        // A waiter connected when the server dies: its stream ends with an error, not with a made-up verdict.
        const waiter = yield* Effect.forkChild(Effect.exit(before.watch(pending.auth_id).pipe(Stream.runCollect)))
        yield* before.watch(pending.auth_id).pipe(Stream.take(1), Stream.runDrain)
        first.child.kill("SIGKILL")
        const killed = yield* Effect.promise(() => first.exited)
        assert.strictEqual(killed.signal, "SIGKILL")
        const cut = yield* Fiber.join(waiter)
        assert.isTrue(cut._tag === "Failure", "the waiter saw the connection drop")

        const second = yield* spawnServer(["--data", data, "--http", "127.0.0.1:0"], { cwd: dir })
        const after = yield* clientFor(second.grpcAddress, data)
        const stored = yield* after.watch(approved.auth_id).pipe(Stream.runCollect)
        assert.deepStrictEqual(
          stored.map((r) => [r.state, r.decided_by]),
          [["approved", "api-key:admin"]]
        )
        // The reconnecting waiter: pending still, then the verdict given after the restart.
        const reconnected = yield* Effect.forkChild(after.watch(pending.auth_id).pipe(Stream.runCollect))
        yield* after.watch(pending.auth_id).pipe(Stream.take(1), Stream.runDrain)
        yield* after.reject(pending.auth_id)
        const seen = yield* Fiber.join(reconnected)
        assert.strictEqual(seen.at(-1)?.state, "rejected")
        assert.strictEqual(seen[0]?.state, "pending")
        const history = yield* Effect.promise(() =>
          fetch(`${second.baseUrl}/events?category=auth_request`, {
            headers: { authorization: `Bearer ${fs.readFileSync(path.join(data, "admin.key"), "utf8").trim()}` }
          }).then((r) => r.json() as Promise<Array<{ action: string }>>)
        )
        assert.deepStrictEqual(
          history.map((e) => e.action),
          ["created", "approved", "created", "rejected"]
        )
        yield* second.stop()
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "SIGKILL under concurrent creates and approvals (group commits) loses no acknowledged change or event",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-auth-kill-load-")
        const data = path.join(dir, "data")
        const first = yield* spawnServer(["--data", data, "--http", "127.0.0.1:0"], { cwd: dir })
        const client = yield* clientFor(first.grpcAddress, data)
        // What the server acknowledged before it died: created ids, and the ids whose approval was answered.
        const created: Array<string> = []
        const approved: Array<string> = []
        const loop = Effect.forever(
          Effect.gen(function* () {
            const request = yield* client.create(sshCheck)
            created.push(request.auth_id)
            yield* client.approve(request.auth_id)
            approved.push(request.auth_id)
          })
        )
        const loops = yield* Effect.forkChild(
          Effect.ignore(
            Effect.all(
              Array.from({ length: 16 }, () => loop),
              { concurrency: "unbounded" }
            )
          )
        )
        // Killed in the middle of the load: once enough has been acknowledged, with calls still in flight.
        while (approved.length < 120) yield* Effect.sleep("10 millis")
        first.child.kill("SIGKILL")
        yield* Effect.promise(() => first.exited)
        yield* Fiber.join(loops)
        const acknowledged = { created: [...created], approved: [...approved] }

        const second = yield* spawnServer(["--data", data, "--http", "127.0.0.1:0"], { cwd: dir })
        const after = yield* clientFor(second.grpcAddress, data)
        const states = new Map((yield* after.list({})).map((r) => [r.auth_id, r.state]))
        for (const id of acknowledged.created) assert.isTrue(states.has(id), `created ${id} was lost`)
        for (const id of acknowledged.approved) assert.strictEqual(states.get(id), "approved", `approval of ${id}`)
        // Every stored state change has its event, in order: created, then approved for the approved ones.
        const history = yield* Effect.promise(() =>
          fetch(`${second.baseUrl}/events?category=auth_request&limit=1000`, {
            headers: { authorization: `Bearer ${fs.readFileSync(path.join(data, "admin.key"), "utf8").trim()}` }
          }).then((r) => r.json() as Promise<Array<{ action: string; data: { auth_id: string } }>>)
        )
        assert.isBelow(history.length, 1000, "the whole history (the cap is 1,000 events)")
        const actionsOf = (id: string) => history.filter((e) => e.data.auth_id === id).map((e) => e.action)
        for (const [id, state] of states) {
          assert.deepStrictEqual(actionsOf(id), state === "approved" ? ["created", "approved"] : ["created"], id)
        }
        yield* second.stop()
      }).pipe(Effect.scoped),
    120_000
  )
})
