import * as fs from "node:fs"
import * as path from "node:path"
import { Events } from "@gatehouse-edge/core/services"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { freePort } from "./FreePort.js"
import { serverOnTempDir } from "./ServerOnTempDir.js"

/**
 * A real Gatehouse server (the whole composition, in this process) that a test can stop and start again on the
 * same port with the same data and routes directories: what a client sees of a server restart.
 */
export interface RestartableServer {
  /** `http://127.0.0.1:<port>`, the same across restarts. */
  readonly origin: string
  /** `127.0.0.1:<port>` of the gRPC API, the same across restarts. */
  readonly grpcAddress: string
  /** The admin key, kept in the data directory across restarts. */
  readonly apiKey: string
  readonly routesDir: string
  /** The directory the server was started in (its config, data and routes are under it). */
  readonly dir: string
  /** Stops the server as a shutdown does (its streams close with 1001); the port is then refused. */
  readonly stop: Effect.Effect<void>
  /** Starts it again on the same port and directories. */
  readonly start: Effect.Effect<void>
  /** The running server's event bus, to publish events a test needs. */
  readonly events: Effect.Effect<Events["Service"]>
}

/** Starts a {@link RestartableServer} (scoped: stopped, and its directory removed, at the end of the test). */
export const startRestartableServer = (
  options: {
    readonly configYaml?: string
    /** Route files to create before the first start: file name → YAML. */
    readonly routeFiles?: Readonly<Record<string, string>>
  } = {}
): Effect.Effect<RestartableServer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const port = yield* freePort
    const grpcPort = yield* freePort
    const { dir, routesDir, config, layer } = yield* serverOnTempDir("gatehouse-restart-", {
      configYaml: options.configYaml ?? "{}\n",
      routeFiles: options.routeFiles,
      flags: { http: `127.0.0.1:${port}`, grpc: `127.0.0.1:${grpcPort}` }
    })

    let running: { readonly scope: Scope.Closeable; readonly events: Events["Service"] } | undefined
    const stop = Effect.suspend(() => {
      const current = running
      running = undefined
      return current === undefined ? Effect.void : Scope.close(current.scope, Exit.void)
    })
    const start = Effect.gen(function* () {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(layer, scope).pipe(Effect.orDie)
      running = { scope, events: Context.get(context, Events) }
    })
    yield* Effect.addFinalizer(() => stop)
    yield* start
    return {
      origin: `http://127.0.0.1:${port}`,
      grpcAddress: `127.0.0.1:${grpcPort}`,
      apiKey: fs.readFileSync(path.join(config.dataDir, "admin.key"), "utf8").trim(),
      routesDir,
      dir,
      stop,
      start,
      events: Effect.suspend(() =>
        running === undefined ? Effect.die(new Error("the server is stopped")) : Effect.succeed(running.events)
      )
    }
  })
