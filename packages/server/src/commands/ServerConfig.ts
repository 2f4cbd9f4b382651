import * as path from "node:path"
import {
  type ConfigSources,
  FileUnreadable,
  type GatehouseConfig,
  loadConfig,
  readTextFile
} from "@gatehouse-edge/core/config"
import { formatIssue } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliExit } from "../CliExit.js"

/** The flags every command that runs against a server's configuration takes. */
export interface ConfigFlags {
  readonly config: Option.Option<string>
  readonly http?: Option.Option<string> | undefined
  readonly grpc?: Option.Option<string> | undefined
  readonly data?: Option.Option<string> | undefined
}

/** A configuration that loaded, with the sources it came from (to validate edits against the same ones). */
export interface ServerConfig {
  readonly config: GatehouseConfig
  readonly sources: Omit<ConfigSources, "file">
}

/** Prints `lines` to stderr and ends the command with exit code 1. */
export const failWith = (lines: ReadonlyArray<string>) =>
  Effect.andThen(Console.error(lines.join("\n")), Effect.fail(new CliExit({ code: 1 })))

/**
 * The config file to run with and its text: `--config`, else `GATEHOUSE_CONFIG`, else `./gatehouse.yml` if it
 * exists, else none (the embedded defaults). A named file that cannot be read is an error, never the defaults.
 */
export const readConfigFile = Effect.fnUntraced(function* (
  flag: Option.Option<string>,
  env: NodeJS.ProcessEnv,
  cwd: string
) {
  const named = Option.getOrUndefined(flag) ?? (env.GATEHOUSE_CONFIG === "" ? undefined : env.GATEHOUSE_CONFIG)
  if (named !== undefined) return { path: named, text: yield* readTextFile(named) }
  const local = path.join(cwd, "gatehouse.yml")
  return yield* readTextFile(local).pipe(
    Effect.map((text) => ({ path: local, text })),
    Effect.catchIf(
      (error) => error.code === "ENOENT",
      () => Effect.succeed(undefined)
    )
  )
})

/**
 * Reads and validates the server's configuration as `gatehouse serve` does (file < `GATEHOUSE_*` environment <
 * flags). A file that cannot be read, or any problem in the configuration, is printed and ends the command with
 * exit code 1.
 */
export const readServerConfig = Effect.fnUntraced(function* (flags: ConfigFlags) {
  const env = process.env
  const cwd = process.cwd()
  const file = yield* readConfigFile(flags.config, env, cwd).pipe(
    Effect.catchIf(
      (error) => error instanceof FileUnreadable,
      (error) => failWith([`gatehouse: cannot read the config file ${path.resolve(cwd, error.path)}: ${error.reason}`])
    )
  )
  const sources = {
    env,
    flags: {
      http: Option.getOrUndefined(flags.http ?? Option.none()),
      grpc: Option.getOrUndefined(flags.grpc ?? Option.none()),
      data: Option.getOrUndefined(flags.data ?? Option.none())
    },
    cwd
  }
  const result = loadConfig({ ...sources, file })
  if (result._tag === "Invalid") {
    return yield* failWith([
      `gatehouse: invalid configuration${file === undefined ? "" : ` (${file.path})`}:`,
      ...result.issues.map((issue) => `  ${formatIssue(issue)}`)
    ])
  }
  for (const warning of result.warnings) yield* Console.error(`gatehouse: ${warning}`)
  return { config: result.config, sources } satisfies ServerConfig
})
