import { FileRoutes, formatListenAddress } from "@gatehouse-edge/core"
import { ValidationFailed } from "@gatehouse-edge/core/domain"
import * as Cause from "effect/Cause"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ensureExampleRoutes } from "../ExampleRoutes.js"
import { layerGatehouseServer } from "../GatehouseServer.js"
import { layerLogging } from "../Logging.js"
import * as MemoryReducerNudge from "../MemoryReducerNudge.js"
import { versionInfo } from "../Version.js"
import { failWith, readServerConfig } from "./ServerConfig.js"
import { describeStartupFailure } from "./StartupFailure.js"

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
    const { config, sources } = yield* readServerConfig(flags)
    // --strict is for CI and deploy checks: invalid route files refuse the start before anything is made (the store,
    // the admin key), so a refused start leaves nothing behind. The route files are checked again as they load.
    if (flags.strict) {
      const problems = yield* FileRoutes.problemsOf(config.routesDir)
      if (problems.length > 0) {
        const refused = describeStartupFailure(Cause.fail(new ValidationFailed({ issues: problems })), "")
        return yield* failWith([`gatehouse: ${refused}`])
      }
    }
    yield* ensureExampleRoutes(config)

    const server = layerGatehouseServer({ config, sources, strict: flags.strict, version: versionInfo(process.env) })
    yield* Layer.launch(Layer.merge(server, MemoryReducerNudge.layer)).pipe(
      Effect.provide(layerLogging(config.log)),
      Effect.catchCause((cause): Effect.Effect<never, unknown> => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
        const described = describeStartupFailure(cause, formatListenAddress(config.http))
        return described === undefined ? Effect.failCause(cause) : failWith([`gatehouse: ${described}`])
      })
    )
  })
).pipe(Command.withDescription("Run the Gatehouse server"))
