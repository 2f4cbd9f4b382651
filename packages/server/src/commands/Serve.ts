import * as path from "node:path"
import { FileUnreadable, formatListenAddress, loadConfig, readTextFile } from "@gatehouse-edge/core"
import { formatIssue } from "@gatehouse-edge/core/domain"
import { Cause, Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { CliExit } from "../CliExit.js"
import { ensureExampleRoutes } from "../ExampleRoutes.js"
import { layerGatehouseServer } from "../GatehouseServer.js"
import { layerLogging } from "../Logging.js"
import { versionInfo } from "../Version.js"
import { describeStartupFailure } from "./StartupFailure.js"

/**
 * The config file to run with and its text: `--config`, else `GATEHOUSE_CONFIG`, else `./gatehouse.yml` if it
 * exists, else none (the embedded defaults). A named file that cannot be read is an error, never the defaults.
 */
export const readConfigFile = Effect.fn("gatehouse.readConfigFile")(function* (
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

const fail = (lines: ReadonlyArray<string>) =>
  Effect.andThen(Console.error(lines.join("\n")), Effect.fail(new CliExit({ code: 1 })))

/** `gatehouse serve`: runs the server until SIGINT/SIGTERM, then shuts down gracefully. */
export const serveCommand = Command.make(
  "serve",
  {
    config: Flag.String("config").pipe(
      Flag.withDescription("Config file (default ./gatehouse.yml if present)"),
      Flag.optional
    ),
    http: Flag.String("http").pipe(
      Flag.withDescription("HTTP listen address host:port (default 127.0.0.1:8888)"),
      Flag.optional
    ),
    grpc: Flag.String("grpc").pipe(
      Flag.withDescription("gRPC listen address host:port (default 127.0.0.1:50443)"),
      Flag.optional
    ),
    data: Flag.String("data").pipe(Flag.withDescription("Data directory (default ./data)"), Flag.optional),
    strict: Flag.Boolean("strict").pipe(
      Flag.withDescription(
        "Refuse to start when a route file is invalid (by default the server starts with the valid files " +
          "and reports the invalid ones as config/error events)"
      ),
      Flag.withDefault(false)
    )
  },
  Effect.fn("gatehouse.serve")(function* (flags) {
    const env = process.env
    const cwd = process.cwd()
    const configFile = yield* readConfigFile(flags.config, env, cwd).pipe(
      Effect.catchIf(
        (error) => error instanceof FileUnreadable,
        (error) => fail([`gatehouse: cannot read config file ${error.path}: ${error.reason}`])
      )
    )
    const cliFlags = {
      http: Option.getOrUndefined(flags.http),
      grpc: Option.getOrUndefined(flags.grpc),
      data: Option.getOrUndefined(flags.data)
    }
    const sources = { env, flags: cliFlags, cwd }
    const result = loadConfig({ ...sources, file: configFile })
    if (result._tag === "Invalid") {
      return yield* fail([
        `gatehouse: invalid configuration${configFile === undefined ? "" : ` (${configFile.path})`}:`,
        ...result.issues.map((issue) => `  ${formatIssue(issue)}`)
      ])
    }
    const { config, warnings } = result
    for (const warning of warnings) yield* Console.error(`gatehouse: ${warning}`)
    yield* ensureExampleRoutes(config)

    const server = layerGatehouseServer({ config, sources, strict: flags.strict, version: versionInfo(env) })
    yield* Layer.launch(server).pipe(
      Effect.provide(layerLogging(config.log)),
      Effect.catchCause((cause): Effect.Effect<never, unknown> => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
        const described = describeStartupFailure(cause, formatListenAddress(config.http))
        return described === undefined ? Effect.failCause(cause) : fail([`gatehouse: ${described}`])
      })
    )
  })
).pipe(Command.withDescription("Run the Gatehouse server"))
