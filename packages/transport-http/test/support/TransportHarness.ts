import * as fs from "node:fs"
import * as path from "node:path"
import {
  ApiKeys,
  ConfigSource,
  EventBus,
  Events,
  Files,
  generateApiKey,
  Health,
  HealthMemory,
  loadConfig,
  Routes,
  SqliteStore
} from "@gatehouse-edge/core"
import type { HealthMap } from "@gatehouse-edge/core/domain"
import { Context, Effect, Layer, Logger, type Scope } from "effect"
import { HttpServer } from "effect/http"
import { tempDir } from "../../../../test/support/TempDir.js"
import { layerHttpApp, layerNodeHttpServer, ServerDescription } from "../../src/index.js"
import { WebSocketPolicy, type WebSocketPolicyShape } from "../../src/server/WebSocketSession.js"

/** A running HTTP transport over real core services, with health and WebSocket limits under the test's control. */
export interface Harness {
  readonly baseUrl: string
  readonly wsUrl: string
  readonly origin: string
  readonly apiKey: string
  readonly routesDir: string
  readonly configFile: string
  readonly events: Events["Service"]
  readonly health: HealthMemory["Service"]
}

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  readonly routeFiles?: Readonly<Record<string, string>>
  readonly health?: HealthMap
  readonly policy?: Partial<WebSocketPolicyShape>
  readonly maxBodyBytes?: number
  readonly configYaml?: string
}

/**
 * Starts the HTTP API on a free loopback port with real routes (temp dir), a real event bus (in-memory SQLite),
 * real files and config services, and a `Health` the test sets directly.
 */
export const startHarness = (options: HarnessOptions = {}): Effect.Effect<Harness, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = yield* tempDir("gatehouse-http-")
    const routesDir = path.join(dir, "routes")
    fs.mkdirSync(routesDir)
    for (const [name, text] of Object.entries(options.routeFiles ?? {}))
      fs.writeFileSync(path.join(routesDir, name), text)
    const configFile = path.join(dir, "gatehouse.yml")
    const configYaml = options.configYaml ?? "events: { history: 1000 }\n"
    fs.writeFileSync(configFile, configYaml)
    const sources = { env: { GATEHOUSE_ROUTES_DIR: routesDir }, flags: { http: "127.0.0.1:0" }, cwd: dir }
    const loaded = loadConfig({ ...sources, file: { path: configFile, text: configYaml } })
    if (loaded._tag === "Invalid") return yield* Effect.die(new Error(JSON.stringify(loaded.issues)))
    const { key, record } = generateApiKey("test")

    const events = EventBus.layer({ historyCap: 1000 }).pipe(Layer.provide(SqliteStore.layerMemory))
    const routes = Routes.layer({ routesDir })
    const configSource = ConfigSource.layer(loaded.config, sources)
    const core = Layer.mergeAll(Health.layerMemory(options.health ?? {}), Files.layer({ configFile, routesDir })).pipe(
      Layer.provideMerge(Layer.merge(routes, configSource)),
      Layer.provideMerge(events)
    )
    const description = Layer.succeed(ServerDescription)(
      ServerDescription.of({
        version: { version: "1.2.3", commit: "abc" },
        openApiJson: { openapi: "3.1.0" },
        openApiYaml: "openapi: 3.1.0\n"
      })
    )
    const policy = Layer.succeed(WebSocketPolicy)({ ...WebSocketPolicy.defaultValue(), ...options.policy })
    const app = layerHttpApp({ maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024 }).pipe(
      Layer.provideMerge(layerNodeHttpServer({ host: "127.0.0.1", port: 0 })),
      Layer.provideMerge(Layer.mergeAll(core, ApiKeys.layer([record]), description, policy)),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(app)
    const origin = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(Effect.provideContext(context))
    return {
      origin,
      baseUrl: `${origin}/api/v1`,
      wsUrl: `${origin.replace(/^http/, "ws")}/api/v1`,
      apiKey: key,
      routesDir,
      configFile,
      events: Context.get(context, Events),
      health: Context.get(context, HealthMemory)
    }
  })
