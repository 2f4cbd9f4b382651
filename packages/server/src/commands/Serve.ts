import * as fs from "node:fs"
import * as path from "node:path"
import { formatListenAddress, loadConfig } from "@gatehouse-edge/core"
import { formatIssue } from "@gatehouse-edge/core/domain"
import { Cause, Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { CliExit } from "../CliExit.js"
import { ensureExampleRoutes } from "../ExampleRoutes.js"
import { layerGatehouseServer } from "../GatehouseServer.js"
import { layerLogging } from "../Logging.js"
import { versionInfo } from "../Version.js"
import { describeStartupFailure } from "./StartupFailure.js"

/** The config file to read: `--config`, else `GATEHOUSE_CONFIG`, else `./gatehouse.yml` if present, else none. */
export const configFileToRead = (flag: Option.Option<string>, env: NodeJS.ProcessEnv, cwd: string) => {
  if (Option.isSome(flag)) return flag.value
  if (env.GATEHOUSE_CONFIG !== undefined && env.GATEHOUSE_CONFIG !== "") return env.GATEHOUSE_CONFIG
  const local = path.join(cwd, "gatehouse.yml")
  return fs.existsSync(local) ? local : undefined
}

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
    const file = configFileToRead(flags.config, env, cwd)
    let text: string | undefined
    if (file !== undefined) {
      text = yield* Effect.try(() => fs.readFileSync(file, "utf8")).pipe(
        Effect.catch((error) => fail([`gatehouse: cannot read config file ${file}: ${String(error)}`]))
      )
    }
    const cliFlags = {
      http: Option.getOrUndefined(flags.http),
      grpc: Option.getOrUndefined(flags.grpc),
      data: Option.getOrUndefined(flags.data)
    }
    const sources = { env, flags: cliFlags, cwd }
    const result = loadConfig({ ...sources, file: file === undefined ? undefined : { path: file, text: text! } })
    if (result._tag === "Invalid") {
      return yield* fail([
        `gatehouse: invalid configuration${file === undefined ? "" : ` (${file})`}:`,
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
