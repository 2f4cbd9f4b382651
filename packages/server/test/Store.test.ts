import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli, spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { Database } from "../../core/src/store/SqliteDriver.js"
import { request } from "../../transport-http/test/support/Http.js"

const storeDir = tempDir("gatehouse-storecli-")

// Each of the first and the damaged-store test runs the CLI five or six times (a process each): on a loaded machine
// that takes longer than the default 30 s.
describe("the store at start, and gatehouse store init", () => {
  it.live(
    "serve refuses a 0-byte store file with a message naming it; store init --force moves it aside",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* storeDir
          fs.mkdirSync(path.join(dir, "data"))
          const db = path.join(dir, "data", "gatehouse.db")
          fs.writeFileSync(db, "")
          const refused = yield* runCli(["serve", "--http", "127.0.0.1:0"], { cwd: dir })
          assert.strictEqual(refused.code, 1)
          assert.include(refused.stderr, `the store ${db} is empty (0 bytes), not a Gatehouse store`)
          assert.strictEqual(fs.statSync(db).size, 0, "nothing was reset")

          const withoutForce = yield* runCli(["store", "init"], { cwd: dir })
          assert.strictEqual(withoutForce.code, 1)
          assert.include(withoutForce.stderr, "not a Gatehouse store")

          const forced = yield* runCli(["store", "init", "--force"], { cwd: dir })
          assert.strictEqual(forced.code, 0, forced.stderr)
          assert.match(forced.stdout, /moved .*gatehouse\.db to .*gatehouse\.db\.bak-\S+ and created a new store/)
          const backups = fs.readdirSync(path.join(dir, "data")).filter((name) => name.includes(".bak-"))
          assert.strictEqual(backups.length, 1)
          assert.strictEqual(fs.statSync(path.join(dir, "data", backups[0]!)).size, 0, "the old file is kept")

          const again = yield* runCli(["store", "init"], { cwd: dir })
          assert.strictEqual(again.code, 0)
          assert.include(again.stdout, "is ready")
          const server = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd: dir })
          yield* server.stop()
        })
      ),
    90_000
  )

  it.live("a store file that is not a SQLite database is refused by serve and moved aside by store init --force", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* storeDir
        fs.mkdirSync(path.join(dir, "data"))
        const db = path.join(dir, "data", "gatehouse.db")
        fs.writeFileSync(db, "hello\n")
        const refused = yield* runCli(["serve", "--http", "127.0.0.1:0"], { cwd: dir })
        assert.strictEqual(refused.code, 1)
        assert.include(refused.stderr, `the store ${db} is not a SQLite database, not a Gatehouse store`)
        const forced = yield* runCli(["store", "init", "--force"], { cwd: dir })
        assert.strictEqual(forced.code, 0, forced.stderr)
        const backups = fs.readdirSync(path.join(dir, "data")).filter((name) => name.includes(".bak-"))
        assert.strictEqual(fs.readFileSync(path.join(dir, "data", backups[0]!), "utf8"), "hello\n", "kept aside")
      })
    )
  )

  it.live(
    "a damaged store is refused at start with what to do, found by store init, and moved aside by --force",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* storeDir
          const first = yield* spawnServer(["--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"], { cwd: dir })
          yield* first.stop()
          const db = path.join(dir, "data", "gatehouse.db")
          // The event history's first page overwritten, as a failing disk or a copy taken mid-write leaves it.
          const store = new Database(db)
          const pageSize = store.pragma("page_size", { simple: true }) as number
          const root = store.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'events'").pluck().get() as number
          store.close()
          const handle = fs.openSync(db, "r+")
          fs.writeSync(handle, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (root - 1) * pageSize)
          fs.closeSync(handle)

          const refused = yield* runCli(["serve", "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"], { cwd: dir })
          assert.strictEqual(refused.code, 1)
          assert.include(refused.stderr, `the store ${db} is damaged. Restore it from a backup, or run`)
          assert.notMatch(refused.stderr, /^\s+at /m, "no stack trace")

          const checked = yield* runCli(["store", "init"], { cwd: dir })
          assert.strictEqual(checked.code, 1, "store init checks every page")
          assert.match(checked.stderr, /is damaged|database disk image is malformed/)
          const forced = yield* runCli(["store", "init", "--force"], { cwd: dir })
          assert.strictEqual(forced.code, 0, forced.stderr)
          assert.match(forced.stdout, /moved .*gatehouse\.db to .*gatehouse\.db\.bak-\S+ and created a new store/)
          const server = yield* spawnServer(["--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"], { cwd: dir })
          yield* server.stop()
        })
      ),
    90_000
  )

  it.live("a data directory of the foundation keeps its events and its admin key (adopted into the store)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* storeDir
        fs.mkdirSync(path.join(dir, "data"))
        const key = `gh_abcd1234_${"K".repeat(43)}`
        fs.writeFileSync(path.join(dir, "data", "admin.key"), `${key}\n`, { mode: 0o600 })
        const db = new Database(path.join(dir, "data", "gatehouse.db"))
        db.exec(`
          CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
          CREATE TABLE events (id TEXT PRIMARY KEY NOT NULL, timestamp TEXT NOT NULL, level TEXT NOT NULL,
            category TEXT NOT NULL, action TEXT NOT NULL, data TEXT NOT NULL) WITHOUT ROWID;
          INSERT INTO schema_migrations VALUES (1, 'events', '2026-11-01T10:00:00.000Z');
          INSERT INTO events VALUES ('01900000-0000-7000-8000-000000000001', '2026-11-01T10:00:01.000Z', 'info',
            'config', 'reload', '{"source":"routes","added":["old"],"removed":[],"changed":[]}');
        `)
        db.close()
        const server = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd: dir })
        const events = yield* request(`${server.baseUrl}/events?category=config`, { key })
        assert.strictEqual(events.status, 200, "the foundation's admin key still works")
        assert.deepStrictEqual(events.json[0].data.added, ["old"])
        // Neither the banner (a terminal) nor the log line naming the file (a pipe, as here): no key was generated.
        assert.notMatch(server.output.stdout, /generated the admin API key/i)
        yield* server.stop()
        const stored = new Database(path.join(dir, "data", "gatehouse.db"), { readonly: true })
        const rows = stored.prepare("SELECT name, prefix, roles FROM api_keys").all()
        stored.close()
        assert.deepStrictEqual(rows, [{ name: "admin", prefix: "abcd1234", roles: '["admin"]' }])
      })
    )
  )

  it.live('says "no such file" or "is a directory" for a --config that is not a file', () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* storeDir
        const missing = yield* runCli(["serve", "--config", "nope.yml"], { cwd: dir })
        assert.strictEqual(missing.code, 1)
        assert.include(missing.stderr, `cannot read the config file ${path.join(dir, "nope.yml")}: no such file`)
        assert.notInclude(missing.stderr, "UnknownError")
        const directory = yield* runCli(["serve", "--config", dir], { cwd: dir })
        assert.strictEqual(directory.code, 1)
        assert.include(directory.stderr, `cannot read the config file ${dir}: is a directory, not a file`)
      })
    )
  )
})
