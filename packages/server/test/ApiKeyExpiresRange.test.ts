import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli } from "../../../test/support/Cli.js"
import { freePort } from "../../../test/support/FreePort.js"

// `apikey create --expires` outside the lifetimes the server accepts is refused by the CLI in the flag's words, not
// with the server's refusal of a JSON field the user never typed. The bounds are the contract's (1 min, 3660 days).

const key = { GATEHOUSE_API_KEY: "gh_test_key" }

describe("apikey create --expires", () => {
  it.live(
    "a lifetime out of range is refused before any call, naming the flag and the range; one in range is sent",
    () =>
      Effect.gen(function* () {
        // Nothing listens there: a command that got as far as calling says it cannot reach the server.
        const server = `http://127.0.0.1:${yield* freePort}`
        const create = (expires: string) =>
          runCli(["apikey", "create", "--name", "ci", "--expires", expires, "--server", server], { env: key })

        for (const expires of ["2s", "59s", "3661d"]) {
          const refused = yield* create(expires)
          assert.strictEqual(refused.code, 1, expires)
          assert.strictEqual(refused.stderr, "gatehouse: --expires: must be from 1m to 3660d\n", expires)
        }
        for (const expires of ["1m", "3660d"]) {
          const sent = yield* create(expires)
          assert.strictEqual(sent.code, 1, expires)
          assert.match(sent.stderr, /^gatehouse: cannot reach the HTTP API at /, expires)
        }
      }),
    120_000
  )
})
