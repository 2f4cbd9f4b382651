import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"

const dir = tempDir("gatehouse-config-errors-")

// `--config` naming a missing file or a directory is covered in Store.test.ts; these are the other two ways in.
describe("gatehouse serve: a config file it cannot read", () => {
  it.live("says `no such file` for GATEHOUSE_CONFIG and `is a directory` for ./gatehouse.yml, with the path", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const cwd = yield* dir
        const env = yield* runCli(["serve", "--http", "127.0.0.1:0"], {
          cwd,
          env: { GATEHOUSE_CONFIG: "elsewhere/gatehouse.yml" }
        })
        assert.strictEqual(env.code, 1)
        assert.include(
          env.stderr,
          `gatehouse: cannot read the config file ${path.join(cwd, "elsewhere/gatehouse.yml")}: no such file`
        )
        assert.notInclude(env.stderr, "UnknownError")
        fs.mkdirSync(path.join(cwd, "gatehouse.yml"))
        const local = yield* runCli(["serve", "--http", "127.0.0.1:0"], { cwd })
        assert.strictEqual(local.code, 1)
        assert.include(
          local.stderr,
          `cannot read the config file ${path.join(cwd, "gatehouse.yml")}: is a directory, not a file`
        )
        assert.isFalse(fs.existsSync(path.join(cwd, "data")), "nothing is created when the config cannot be read")
      })
    )
  )
})

describe("gatehouse validate --config: the file as a file", () => {
  it.live("reports the file's own values even when a GATEHOUSE_ variable would replace them", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const cwd = yield* dir
        fs.writeFileSync(path.join(cwd, "gatehouse.yml"), "http: { addr: nope }\n")
        const result = yield* runCli(["validate", "--config", "gatehouse.yml"], {
          cwd,
          env: { GATEHOUSE_HTTP_ADDR: "127.0.0.1:9999" }
        })
        assert.strictEqual(result.code, 1)
        assert.include(
          result.stderr,
          'gatehouse.yml:1:15: http.addr: expected host:port, e.g. 127.0.0.1:8888 or [::1]:8888, got "nope"'
        )
        assert.notInclude(result.stderr, "GATEHOUSE_HTTP_ADDR")
      })
    )
  )

  it.live("reads ${NAME} from the environment, and points at the line and column of an unset one", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const cwd = yield* dir
        fs.writeFileSync(path.join(cwd, "gatehouse.yml"), "routes_dir: ${ROUTES_FROM_ENV}\ndata_dir: ${UNSET_DIR}\n")
        const unset = yield* runCli(["validate", "--config", "gatehouse.yml"], {
          cwd,
          env: { ROUTES_FROM_ENV: "/srv/routes" }
        })
        assert.strictEqual(unset.code, 1)
        assert.include(
          unset.stderr,
          "gatehouse.yml:2:11: data_dir: environment variable UNSET_DIR (referenced as ${UNSET_DIR}) is not set"
        )
        assert.notInclude(unset.stderr, "ROUTES_FROM_ENV", "a variable that is set is read, not reported")
        assert.include(unset.stderr, "1 problem found")
        const ok = yield* runCli(["validate", "--config", "gatehouse.yml"], {
          cwd,
          env: { ROUTES_FROM_ENV: "/srv/routes", UNSET_DIR: "/srv/data" }
        })
        assert.strictEqual(ok.code, 0, ok.stderr)
      })
    )
  )

  it.live("says why a config file cannot be read", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const cwd = yield* dir
        const result = yield* runCli(["validate", "--config", "nope.yml"], { cwd })
        assert.strictEqual(result.code, 1)
        assert.include(result.stderr, "nope.yml: cannot read: no such file")
      })
    )
  )
})
