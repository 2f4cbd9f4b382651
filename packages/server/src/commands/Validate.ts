import * as fs from "node:fs"
import * as path from "node:path"
import { loadConfig, validateRouteSources } from "@gatehouse-edge/core"
import { formatIssue, type ValidationIssue } from "@gatehouse-edge/core/domain"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { CliExit } from "../CliExit.js"

/** `gatehouse validate <files...>`: validates route files offline, together (as the server would load them). */
export const validateCommand = Command.make(
  "validate",
  {
    files: Argument.String("files").pipe(Argument.withDescription("Route files (YAML)"), Argument.variadic({ min: 0 })),
    config: Flag.String("config").pipe(Flag.withDescription("Also validate this gatehouse.yml"), Flag.optional)
  },
  Effect.fn("gatehouse.validate")(function* ({ files, config }) {
    const issues: Array<ValidationIssue> = []
    const sources: Array<{ file: string; text: string }> = []
    for (const file of files) {
      try {
        sources.push({ file, text: fs.readFileSync(file, "utf8") })
      } catch (error) {
        issues.push({
          path: [],
          message: `cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
          file
        })
      }
    }
    const report = validateRouteSources(sources)
    issues.push(...report.issues)
    if (Option.isSome(config)) {
      const file = config.value
      const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined
      if (text === undefined) issues.push({ path: [], message: "cannot read: ENOENT", file })
      else {
        const result = loadConfig({ file: { path: file, text }, env: {}, cwd: path.dirname(path.resolve(file)) })
        if (result._tag === "Invalid") issues.push(...result.issues)
      }
    }
    if (files.length === 0 && Option.isNone(config)) {
      yield* Console.error("gatehouse validate: give route files to check (and/or --config gatehouse.yml)")
      return yield* new CliExit({ code: 2 })
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
