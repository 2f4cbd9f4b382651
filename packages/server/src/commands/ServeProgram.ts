import { FileRoutes, formatListenAddress } from "@gatehouse-edge/core"
import { ValidationFailed } from "@gatehouse-edge/core/domain"
import * as Cause from "effect/Cause"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { databasePath } from "../CoreLayer.js"
import { ensureExampleRoutes } from "../ExampleRoutes.js"
import { layerGatehouseServer } from "../GatehouseServer.js"
import { layerLogging } from "../Logging.js"
import * as MemoryReducerNudge from "../MemoryReducerNudge.js"
import { versionInfo } from "../Version.js"
import { failWith, readServerConfig } from "./ServerConfig.js"
import { describeStartupFailure } from "./StartupFailure.js"

/** The flags of `gatehouse serve`. */
export interface ServeFlags {
  readonly config: Option.Option<string>
  readonly http: Option.Option<string>
  readonly grpc: Option.Option<string>
  readonly data: Option.Option<string>
  readonly strict: boolean
}

/** What `gatehouse serve` runs (its own module: see `Serve.ts`): the server, until SIGINT/SIGTERM. */
export const serve = Effect.fnUntraced(function* (flags: ServeFlags) {
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
  // effect/cli's global `--log-level` (before or after `serve`): the cli sets the level around this handler, but the
  // logging layer sets the config's, so the flag is handed to it to win over `log.level` (flags > environment > file).
  const levelFlag = Option.flatten(yield* Effect.serviceOption(GlobalFlag.LogLevel))
  const logging = layerLogging(config.log, { level: Option.getOrUndefined(levelFlag) })
  yield* ensureExampleRoutes(config).pipe(Effect.provide(logging))

  const server = layerGatehouseServer({ config, sources, strict: flags.strict, version: versionInfo(process.env) })
  yield* Layer.launch(Layer.merge(server, MemoryReducerNudge.layer)).pipe(
    Effect.provide(logging),
    Effect.catchCause((cause): Effect.Effect<never, unknown> => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      const described = describeStartupFailure(cause, formatListenAddress(config.http), databasePath(config))
      return described === undefined ? Effect.failCause(cause) : failWith([`gatehouse: ${described}`])
    })
  )
})
