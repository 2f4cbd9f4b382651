import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type ConfigSources, type GatehouseConfig, loadConfig } from "@gatehouse-edge/core"
import { formatIssue } from "@gatehouse-edge/core/domain"
import { Console, Effect, Option } from "effect"
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

const describeReadError = (error: NodeJS.ErrnoException): string => {
  switch (error.code) {
    case "ENOENT":
      return "no such file"
    case "EISDIR":
      return "is a directory, not a file"
    case "EACCES":
      return "permission denied"
    default:
      return error.code ?? error.message
  }
}

const exists = (file: string) =>
  Effect.tryPromise(() => fs.stat(file)).pipe(
    Effect.as(true),
    Effect.catch(() => Effect.succeed(false))
  )

/** The config file to read: `--config`, else `GATEHOUSE_CONFIG`, else `./gatehouse.yml` if present, else none. */
export const configFileToRead = Effect.fnUntraced(function* (
  flag: Option.Option<string>,
  env: NodeJS.ProcessEnv,
  cwd: string
) {
  if (Option.isSome(flag)) return flag.value
  if (env.GATEHOUSE_CONFIG !== undefined && env.GATEHOUSE_CONFIG !== "") return env.GATEHOUSE_CONFIG
  const local = path.join(cwd, "gatehouse.yml")
  return (yield* exists(local)) ? local : undefined
})

/**
 * Reads and validates the server's configuration as `gatehouse serve` does (file < `GATEHOUSE_*` environment <
 * flags). A file that cannot be read, or any problem in the configuration, is printed and ends the command with
 * exit code 1.
 */
export const readServerConfig = Effect.fnUntraced(function* (flags: ConfigFlags) {
  const env = process.env
  const cwd = process.cwd()
  const file = yield* configFileToRead(flags.config, env, cwd)
  let text: string | undefined
  if (file !== undefined) {
    text = yield* Effect.tryPromise({
      try: () => fs.readFile(file, "utf8"),
      catch: (error) => error as NodeJS.ErrnoException
    }).pipe(
      Effect.catch((error) =>
        failWith([`gatehouse: cannot read the config file ${path.resolve(cwd, file)}: ${describeReadError(error)}`])
      )
    )
  }
  const sources = {
    env,
    flags: {
      http: Option.getOrUndefined(flags.http ?? Option.none()),
      grpc: Option.getOrUndefined(flags.grpc ?? Option.none()),
      data: Option.getOrUndefined(flags.data ?? Option.none())
    },
    cwd
  }
  const result = loadConfig({ ...sources, file: file === undefined ? undefined : { path: file, text: text! } })
  if (result._tag === "Invalid") {
    return yield* failWith([
      `gatehouse: invalid configuration${file === undefined ? "" : ` (${file})`}:`,
      ...result.issues.map((issue) => `  ${formatIssue(issue)}`)
    ])
  }
  for (const warning of result.warnings) yield* Console.error(`gatehouse: ${warning}`)
  return { config: result.config, sources } satisfies ServerConfig
})
