import { assert, describe, it } from "@effect/vitest"
import { verifyPassword } from "@gatehouse-edge/core"
import { Effect } from "effect"
import { runCli } from "../../../test/support/Cli.js"
import { startTestServer } from "../../../test/support/TestServer.js"
import { request } from "../../transport-http/test/support/Http.js"

describe("gatehouse hash-password, apikey, sessions", () => {
  it.live("hash-password reads the password from stdin and prints an argon2id hash of it", () =>
    Effect.gen(function* () {
      const result = yield* runCli(["hash-password"], { input: "s3cret pass\n" })
      assert.strictEqual(result.code, 0, result.stderr)
      const hash = result.stdout.trim()
      assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
      assert.isTrue(yield* verifyPassword(hash, "s3cret pass"), "the trailing newline is not part of it")
      assert.notInclude(result.stdout + result.stderr, "s3cret")
      const empty = yield* runCli(["hash-password"], { input: "" })
      assert.strictEqual(empty.code, 1)
      assert.include(empty.stderr, "empty password")
      const argv = yield* runCli(["hash-password", "s3cret"], { input: "x\n" })
      assert.notStrictEqual(argv.code, 0, "a password on the command line is not taken")
    })
  )

  it.live(
    "apikey create (printed once), list, revoke; sessions list and revoke; errors on one line",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* startTestServer()
          const cli = (args: ReadonlyArray<string>) =>
            runCli([...args, "--server", server.origin], { cwd: server.dir, env: { GATEHOUSE_API_KEY: server.apiKey } })

          const created = yield* cli([
            "apikey",
            "create",
            "--name",
            "ci",
            "--scope",
            "routes:read,hypervisor:control",
            "--expires",
            "30d"
          ])
          assert.strictEqual(created.code, 0, created.stderr)
          const key = created.stdout.trim()
          assert.match(key, /^gh_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/, "stdout is the key alone (for scripts)")
          assert.include(created.stderr, "shown once")
          assert.strictEqual((yield* request(`${server.baseUrl}/route/list`, { key })).status, 200)

          const list = yield* cli(["apikey", "list"])
          assert.strictEqual(list.code, 0, list.stderr)
          assert.match(
            list.stdout,
            new RegExp(`^ci\\s+gh_${key.slice(3, 11)}_…\\s+routes:read,hypervisor:write\\s+expires `, "m")
          )
          assert.notInclude(list.stdout, key)
          const json = JSON.parse((yield* cli(["apikey", "list", "--json"])).stdout)
          assert.deepStrictEqual(
            json.map((k: { name: string }) => k.name),
            ["admin", "ci"]
          )

          const badScope = yield* cli(["apikey", "create", "--name", "x", "--scope", "route:read"])
          assert.strictEqual(badScope.code, 1)
          assert.include(badScope.stderr, 'did you mean "routes:read"')
          const badExpiry = yield* cli(["apikey", "create", "--name", "x", "--expires", "soon"])
          assert.strictEqual(badExpiry.code, 1)
          assert.include(badExpiry.stderr, "--expires")

          const revoked = yield* cli(["apikey", "revoke", "ci"])
          assert.strictEqual(revoked.code, 0, revoked.stderr)
          assert.include(revoked.stdout, 'revoked API key "ci"')
          assert.strictEqual((yield* request(`${server.baseUrl}/route/list`, { key })).status, 401)
          const unknown = yield* cli(["apikey", "revoke", "ci"])
          assert.strictEqual(unknown.code, 1)
          assert.include(unknown.stderr, 'no active API key named "ci"')

          const noSessions = yield* cli(["sessions", "list"])
          assert.strictEqual(noSessions.code, 0, noSessions.stderr)
          assert.strictEqual(noSessions.stdout.trim(), "no active sessions")
          const gone = yield* cli(["sessions", "revoke", "s_nope"])
          assert.strictEqual(gone.code, 1)
          assert.include(gone.stderr, "no active session s_nope")
        })
      ),
    // Eleven CLI processes, each starting TypeScript from source: seconds each on a busy machine.
    120_000
  )
})
