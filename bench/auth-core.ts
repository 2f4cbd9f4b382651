/**
 * The core of an auth-request pair without any transport: `AuthRequests.create` then `approve`, from `concurrency`
 * fibers in this process, on a SQLite file with the event bus (history cap 1,000, the server's default), as the
 * server composes them. Next to it, in interleaved rounds, a reference on the same machine: the same rows written
 * by bare better-sqlite3 prepared statements, one transaction per state change with its event, no Effect (what a
 * pair costs SQLite when every change commits alone, as the core did before its group commit). The ratio of the
 * two moves far less with the machine's load than either number alone, so it is the one to compare between
 * changes.
 *
 *   npx tsx --conditions=@gatehouse-edge/source bench/auth-core.ts [--concurrency=32] [--duration=3] [--rounds=5]
 */
import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { AuthRequests, AuthRequestsLive, EventBus, EventRepository, StoreLive } from "@gatehouse-edge/core"
import type { Principal } from "@gatehouse-edge/core/domain"
import { Effect, Layer, ManagedRuntime } from "effect"
import { fmt, median, parseArgs, printTable, repoRoot } from "./support.js"

const args = parseArgs({ concurrency: "32", duration: "3", rounds: "5" })
const concurrency = Number(args.concurrency)
const durationMs = Number(args.duration) * 1000
const rounds = Number(args.rounds)

// The driver the store uses on this Node (packages/core/src/store/SqliteDriver.ts), loaded as core loads it.
const Database = createRequire(path.join(repoRoot, "packages/core/package.json"))(
  Number(process.versions.node.split(".")[0]) >= 22 ? "better-sqlite3" : "better-sqlite3-v12"
) as typeof import("better-sqlite3")

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-auth-core-"))
const sshCheck = { kind: "ssh_check", ssh_check: { src: "127.0.0.1", dst: "bench", local_user: "root" } } as const

// An operator's key, as the gRPC benchmark's: its creates have no allowance (only a create-only key's have).
const operator: Principal = { method: "api_key", subject: "api-key:bench", roles: [], scopes: ["admin"] }

const layer = AuthRequestsLive.layer({ ...AuthRequestsLive.defaultConfig, maxPending: 20_000 }).pipe(
  Layer.provideMerge(EventBus.layer({ historyCap: 1000 })),
  Layer.provide(EventRepository.layer),
  Layer.provide(StoreLive.layer({ filename: path.join(dir, "gatehouse.db") }))
)
const runtime = ManagedRuntime.make(layer)

/** Pairs per second from `concurrency` fibers for `ms`. */
const corePairs = (ms: number) =>
  runtime.runPromise(
    Effect.gen(function* () {
      const service = yield* AuthRequests
      let done = 0
      const until = performance.now() + ms
      const loop = Effect.gen(function* () {
        while (performance.now() < until) {
          const created = yield* service.create(sshCheck, operator)
          yield* service.approve(created.auth_id, "api-key:bench")
          done++
        }
      })
      const started = performance.now()
      yield* Effect.all(
        Array.from({ length: concurrency }, () => loop),
        { concurrency: "unbounded", discard: true }
      )
      return (done * 1000) / (performance.now() - started)
    })
  )

/** The same rows by bare better-sqlite3: two transactions a pair, each with its event. */
const reference = (() => {
  const db = new Database(path.join(dir, "reference.db"))
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL") // as the store (packages/core/src/store/SqliteClient.ts)
  db.exec(`CREATE TABLE auth_requests (auth_id TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,
    created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, decided_at BIGINT, decided_by TEXT, src TEXT, dst TEXT,
    local_user TEXT);
    CREATE INDEX auth_requests_state ON auth_requests (state, expires_at);
    CREATE INDEX auth_requests_created ON auth_requests (created_at);
    CREATE INDEX auth_requests_pending_expiry ON auth_requests (kind, expires_at) WHERE state = 'pending';
    CREATE TABLE events (id TEXT PRIMARY KEY NOT NULL, timestamp TEXT NOT NULL, level TEXT NOT NULL,
      category TEXT NOT NULL, action TEXT NOT NULL, data TEXT NOT NULL CHECK (json_valid(data))) WITHOUT ROWID;
    CREATE INDEX events_category_id ON events (category, id);`)
  const count = db.prepare(
    "SELECT count(*) AS n FROM auth_requests WHERE state = 'pending' AND kind = 'ssh_check' AND expires_at > ?"
  )
  const insert = db.prepare(
    "INSERT INTO auth_requests (auth_id, kind, state, created_at, expires_at, src, dst, local_user) VALUES (?, 'ssh_check', 'pending', ?, ?, '127.0.0.1', 'bench', 'root')"
  )
  const decide = db.prepare(
    "UPDATE auth_requests SET state = 'approved', decided_at = ?, decided_by = 'api-key:bench' WHERE auth_id = ? AND state = 'pending' AND expires_at > ? RETURNING *"
  )
  const event = db.prepare(
    "INSERT INTO events (id, timestamp, level, category, action, data) VALUES (?, ?, 'info', 'auth_request', ?, ?)"
  )
  const create = db.transaction((id: string, now: number) => {
    count.get(now)
    insert.run(id, now, now + 300_000)
    event.run(randomUUID(), new Date(now).toISOString(), "created", JSON.stringify({ auth_id: id, kind: "ssh_check" }))
  })
  const approve = db.transaction((id: string, now: number) => {
    decide.get(now, id, now)
    event.run(randomUUID(), new Date(now).toISOString(), "approved", JSON.stringify({ auth_id: id, kind: "ssh_check" }))
  })
  return async (ms: number) => {
    let done = 0
    const started = performance.now()
    while (performance.now() - started < ms) {
      const id = `ghreq_${randomBytes(18).toString("base64url")}`
      create(id, Date.now())
      approve(id, Date.now())
      done++
    }
    return (done * 1000) / (performance.now() - started)
  }
})()

await corePairs(1000)
await reference(500)
const core: Array<number> = []
const bare: Array<number> = []
for (let i = 0; i < rounds; i++) {
  core.push(await corePairs(durationMs))
  bare.push(await reference(durationMs))
}
await runtime.dispose()
fs.rmSync(dir, { recursive: true, force: true })

console.log(
  `\ncreate + approve pairs in-process, ${concurrency} fibers, ${rounds} × ${durationMs / 1000} s, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
printTable(
  ["", "pairs/s (median)", "per round", "µs a pair"],
  [
    ["core (AuthRequests)", fmt(median(core)), core.map((n) => fmt(n)).join(", "), fmt(1e6 / median(core))],
    [
      "better-sqlite3, a commit per change",
      fmt(median(bare)),
      bare.map((n) => fmt(n)).join(", "),
      fmt(1e6 / median(bare))
    ],
    ["ratio core / better-sqlite3", fmt(median(core.map((c, i) => c / bare[i]!)), 3), "", ""]
  ]
)
