import { type FileUnreadable, readTextFile, validateConfigFile } from "@gatehouse-edge/core/config"
import { formatIssue, type ValidationIssue } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { CliExit } from "../CliExit.js"

const cannotRead = (error: FileUnreadable): ValidationIssue => ({
  path: [],
  message: `cannot read: ${error.reason}`,
  file: error.path
})

/**
 * `gatehouse validate <files...>`: validates route files offline, together (as the server would load them), and
 * with `--config` a gatehouse.yml as a file: its own values, `${NAME}` read from this environment (the one the
 * server is meant to start in), no `GATEHOUSE_*` variable applied.
 */
export const validateCommand = Command.make(
  "validate",
  {
    files: Argument.String("files").pipe(Argument.withDescription("Route files (YAML)"), Argument.variadic({ min: 0 })),
    config: Flag.String("config").pipe(
      Flag.withDescription("Also validate this gatehouse.yml as a file (it reads environment variables it references)"),
      Flag.optional
    )
  },
  Effect.fn("gatehouse.validate")(function* ({ files, config }) {
    if (files.length === 0 && Option.isNone(config)) {
      yield* Console.error("gatehouse validate: give route files to check (and/or --config gatehouse.yml)")
      return yield* new CliExit({ code: 2 })
    }
    const issues: Array<ValidationIssue> = []
    const sources: Array<{ file: string; text: string }> = []
    for (const file of files) {
      const read = yield* Effect.result(readTextFile(file))
      if (Result.isSuccess(read)) sources.push({ file, text: read.success })
      else issues.push(cannotRead(read.failure))
    }
    // The validator is loaded when the command runs (every other command would load it too if it were imported
    // above), from core's light entry: the rest of core (store, services, drivers) is not needed to check a file.
    const { validateRouteSources } = yield* Effect.promise(() => import("@gatehouse-edge/core/routes"))
    const report = validateRouteSources(sources)
    issues.push(...report.issues)
    if (Option.isSome(config)) {
      const file = config.value
      const read = yield* Effect.result(readTextFile(file))
      if (Result.isFailure(read)) issues.push(cannotRead(read.failure))
      else {
        const result = validateConfigFile({
          file: { path: file, text: read.success },
          env: process.env,
          cwd: process.cwd()
        })
        if (result._tag === "Invalid") issues.push(...result.issues)
      }
    }
    if (issues.length > 0) {
      yield* Console.error(issues.map(formatIssue).join("\n"))
      yield* Console.error(`${issues.length} problem${issues.length === 1 ? "" : "s"} found`)
      return yield* new CliExit({ code: 1 })
    }
    const routeCount = report.files.reduce((n, f) => n + (f.report._tag === "Parsed" ? f.report.routes.length : 0), 0)
    yield* Console.log(
      `OK: ${routeCount} route${routeCount === 1 ? "" : "s"} in ${files.length} file${files.length === 1 ? "" : "s"}`
    )
  })
).pipe(Command.withDescription("Validate route files (and optionally the config file) without starting the server"))
