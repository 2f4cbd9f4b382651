import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { serveUntilAnswering } from "./support/ServeUntilAnswering.js"

/** A run of `gatehouse <args>` (a `serve`, the flag placed as the test says) logging JSON: its stdout, and the levels. */
const serveOnce = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.scoped(
    Effect.map(serveUntilAnswering(args, { GATEHOUSE_LOG_FORMAT: "json", ...env }), ({ stdout }) => ({
      stdout,
      levels: stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line).level as string)
    }))
  )

describe("gatehouse serve --log-level", () => {
  it.live(
    "the flag, after or before `serve`, wins over the config's level: no INFO line under warn or error",
    () =>
      Effect.gen(function* () {
        const after = yield* serveOnce(["serve", "--log-level", "warn"])
        assert.deepStrictEqual(
          after.levels.filter((level) => level === "INFO" || level === "DEBUG"),
          [],
          `INFO lines under serve --log-level warn:\n${after.stdout}`
        )
        const before = yield* serveOnce(["--log-level", "error", "serve"])
        assert.deepStrictEqual(
          before.levels.filter((level) => level !== "ERROR" && level !== "FATAL"),
          [],
          `lines below ERROR under --log-level error serve:\n${before.stdout}`
        )
      }),
    120_000
  )

  it.live(
    "without the flag INFO lines are printed; the flag also wins over GATEHOUSE_LOG_LEVEL",
    () =>
      Effect.gen(function* () {
        const plain = yield* serveOnce(["serve"])
        assert.include(plain.levels, "INFO", `no INFO line without the flag:\n${plain.stdout}`)
        assert.match(plain.stdout, /listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1/)
        const overEnv = yield* serveOnce(["--log-level", "info", "serve"], { GATEHOUSE_LOG_LEVEL: "warn" })
        assert.include(
          overEnv.levels,
          "INFO",
          `no INFO line under --log-level info, GATEHOUSE_LOG_LEVEL=warn:\n${overEnv.stdout}`
        )
      }),
    120_000
  )
})
