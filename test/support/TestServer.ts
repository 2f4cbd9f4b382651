import * as fs from "node:fs"
import * as path from "node:path"
import { AuthRequestWaiterCount, UptimeWatcherCount } from "@gatehouse-edge/core"
import { Events } from "@gatehouse-edge/core/services"
import { GrpcServerAddress } from "@gatehouse-edge/transport-grpc"
import { Context, Effect, Layer, type Scope } from "effect"
import { HttpServer } from "effect/http"
import { serverOnTempDir } from "./ServerOnTempDir.js"

/** A real Gatehouse server on a free loopback port, with its own temp directory. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** `http://127.0.0.1:<port>/api/v1` */
  readonly baseUrl: string
  /** `ws://127.0.0.1:<port>/api/v1` */
  readonly wsUrl: string
  readonly apiKey: string
  readonly dir: string
  readonly dataDir: string
  readonly routesDir: string
  readonly configFile: string | undefined
  /** The server's event bus, to publish events a test needs. */
  readonly events: Events["Service"]
  /** `127.0.0.1:<port>` of the gRPC API. */
  readonly grpcAddress: string
  /** How many auth-request watchers the server holds (to prove a closed stream frees its waiter). */
  readonly authRequestWaiters: Effect.Effect<number>
  /** How many uptime watchers the server holds (to prove a closed stream frees its upstream). */
  readonly uptimeWatchers: Effect.Effect<number>
}

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** Route files to create before start: file name → YAML. */
  readonly routeFiles?: Readonly<Record<string, string>>
  /** A `gatehouse.yml` to start with (written into the temp dir); `http.addr` is forced to a free port. */
  readonly configYaml?: string
  /**
   * The loopback port to serve HTTP on instead of one the OS picks: for a configuration that must know the
   * server's own origin before it starts (an OpenID provider's registered redirect URI). Take it from `freePort`.
   */
  readonly port?: number
  readonly env?: Readonly<Record<string, string>>
}

/**
 * Starts the real server composition (`layerGatehouseServer`: SQLite store, event bus, routes, health monitors,
 * file watcher, HTTP API) in this process, scoped to the test; its temp directory is removed afterwards.
 * Logs are silenced to keep test output readable.
 */
export const startTestServer = (options: TestServerOptions = {}): Effect.Effect<TestServer, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const {
      dir,
      routesDir,
      configFile,
      config,
      layer: server
    } = yield* serverOnTempDir("gatehouse-test-", {
      configYaml: options.configYaml,
      routeFiles: options.routeFiles,
      env: options.env,
      flags: { http: `127.0.0.1:${options.port ?? 0}`, grpc: "127.0.0.1:0" }
    })
    const context = yield* Layer.build(server)
    const address = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(
      Effect.provideContext(context)
    )
    const origin = address.replace("0.0.0.0", "127.0.0.1")
    const apiKey = fs.readFileSync(path.join(config.dataDir, "admin.key"), "utf8").trim()
    return {
      origin,
      baseUrl: `${origin}/api/v1`,
      wsUrl: `${origin.replace(/^http/, "ws")}/api/v1`,
      apiKey,
      dir,
      dataDir: config.dataDir,
      routesDir,
      configFile,
      events: Context.get(context, Events),
      grpcAddress: `127.0.0.1:${Context.get(context, GrpcServerAddress).port}`,
      authRequestWaiters: Context.get(context, AuthRequestWaiterCount).get,
      uptimeWatchers: Context.get(context, UptimeWatcherCount).get
    }
  })
