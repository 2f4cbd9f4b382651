import * as fs from "node:fs"
import * as path from "node:path"
import {
  ApiKeyRepository,
  ApiKeysLive,
  AuthenticationLive,
  AuthRequestsLive,
  CertificatesLive,
  ConfigSourceLive,
  DockerLive,
  EventBus,
  EventRepository,
  Events,
  FileRoutes,
  FilesLive,
  generateApiKey,
  Health,
  HealthMemory,
  HypervisorLive,
  LoginLive,
  loadConfig,
  NodeShellLive,
  OidcLoginRepository,
  RouteListLive,
  RoutesLive,
  RouteValidatorLive,
  ServerSecrets,
  SessionRepository,
  SessionsLive,
  StoreLive,
  UptimeLive,
  UptimeRepository,
  UptimeWatcherCount,
  ValidationWorkersLive
} from "@gatehouse-edge/core"
import { type HealthInfo, type HealthMap, sameStatuses } from "@gatehouse-edge/core/domain"
import { type RouteRecord, Routes, ValidationWorkers } from "@gatehouse-edge/core/services"
import { Context, Deferred, Effect, Layer, Logger, type Scope, Stream, SubscriptionRef } from "effect"
import { HttpServer } from "effect/http"
import { tempDir } from "../../../../test/support/TempDir.js"
import {
  type AccessLogWrite,
  AccessLogWriter,
  layerHttpApp,
  layerNodeHttpServer,
  ServerDescription,
  WebSocketConnections
} from "../../src/index.js"
import { WebSocketPolicy, type WebSocketPolicyShape } from "../../src/websocket/WebSocketPolicy.js"

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
  /** Makes every health stream (`/health` WebSocket) die with `defect`: a bug after the upgrade. */
  readonly breakHealthStreams: (defect: unknown) => Effect.Effect<void>
  /** How many WebSocket streams hold a place: open, or ended with their socket not gone yet (the close grace). */
  readonly openStreams: Effect.Effect<number>
  /** How many of them have ended (the server closed them) but keep their place until their socket is gone. */
  readonly closingStreams: Effect.Effect<number>
  /** Bytes the server counts as queued for the client at `address` (a client key), or for every client. */
  readonly queuedBytes: (address?: string) => Effect.Effect<number>
  /** Where large documents are validated (worker threads). */
  readonly validationWorkers: ValidationWorkers["Service"]
  /** How many uptime watchers the core holds (to prove a closed stream frees its upstream). */
  readonly uptimeWatchers: Effect.Effect<number>
}

/** The harness's handle on its health streams, to make them fail as a bug would. */
class HealthFault extends Context.Service<HealthFault, { readonly break: (defect: unknown) => Effect.Effect<void> }>()(
  "test/HealthFault"
) {}

const unknown: HealthInfo = { status: "unknown", latency_ms: 0, uptime_s: 0, last_check: null }

/**
 * A Health service the test sets through {@link HealthMemory}, shaped like the real one: it lists exactly the
 * routes of the table (`unknown` unless the test set a value for that alias) and follows the table's changes.
 */
const healthOverRoutes = (initial: HealthMap): Layer.Layer<Health | HealthMemory | HealthFault, never, Routes> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const routes = yield* Routes
      const overrides = yield* SubscriptionRef.make(initial)
      const broken = yield* Deferred.make<never>()
      const view = (records: ReadonlyArray<RouteRecord>, map: HealthMap): HealthMap =>
        Object.fromEntries(records.map((r) => [r.route.alias, map[r.route.alias] ?? unknown]))
      const health = Health.of({
        snapshot: Effect.zipWith(routes.list, SubscriptionRef.get(overrides), view),
        changes: Stream.zipLatestWith(routes.changes, SubscriptionRef.changes(overrides), view).pipe(
          Stream.changesWith(sameStatuses),
          Stream.merge(Stream.fromEffect(Deferred.await(broken)), { haltStrategy: "either" })
        )
      })
      const memory = HealthMemory.of({
        set: (map) => SubscriptionRef.set(overrides, map),
        update: (f) => SubscriptionRef.update(overrides, f)
      })
      const fault = HealthFault.of({ break: (defect) => Effect.asVoid(Deferred.die(broken, defect)) })
      return Context.make(Health, health).pipe(Context.add(HealthMemory, memory), Context.add(HealthFault, fault))
    })
  )

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  readonly routeFiles?: Readonly<Record<string, string>>
  readonly health?: HealthMap
  readonly policy?: Partial<WebSocketPolicyShape>
  readonly maxBodyBytes?: number
  readonly maxConcurrentRequestsPerClient?: number
  /** Bytes the request bodies being read may hold (all clients, each client); the server's defaults otherwise. */
  readonly bodiesInFlight?: { readonly totalBytes?: number; readonly perClientBytes?: number }
  /** Proxies whose `X-Forwarded-For` is believed (none otherwise). */
  readonly trustedProxy?: (address: string) => boolean
  readonly configYaml?: string
  /** The validation worker pool (size, queue); the server's defaults otherwise. */
  readonly validation?: ValidationWorkersLive.ValidationWorkersOptions
  /** Where access-log lines go (none are written otherwise: the harness has no logger). */
  readonly accessLog?: AccessLogWrite
  /** How long a file write waits for the one before it, and for each file operation; the server's otherwise. */
  readonly fileTimeouts?: Pick<FilesLive.FilesOptions, "lockTimeout" | "operationTimeout">
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
    const { key, prefix, sha256 } = generateApiKey()

    const repositories = Layer.mergeAll(
      EventRepository.layer,
      ApiKeyRepository.layer,
      SessionRepository.layer,
      OidcLoginRepository.layer,
      ServerSecrets.layer,
      UptimeRepository.layer
    ).pipe(Layer.provideMerge(StoreLive.layerMemory))
    const testKey = Layer.effectDiscard(
      Effect.flatMap(ApiKeyRepository, (keys) =>
        keys.insert({
          id: "test-key",
          name: "test",
          prefix,
          sha256,
          roles: ["admin"],
          scopes: ["admin"],
          created_at: "2026-01-01T00:00:00.000Z",
          expires_at: null,
          last_used_at: null,
          revoked_at: null
        })
      ).pipe(Effect.orDie)
    )
    // The config's cap (1000 unless `configYaml` sets `events.history`), as the server takes it.
    const events = EventBus.layer({ historyCap: loaded.config.events.history })
    const authRequests = AuthRequestsLive.layer()
    // The clusters of the config (none unless `configYaml` names some).
    const hypervisor = HypervisorLive.layer(loaded.config.hypervisor).pipe(Layer.provide(NodeShellLive.layer))
    const routes = FileRoutes.layer({ routesDir }).pipe(
      Layer.provideMerge(RoutesLive.layer),
      Layer.provideMerge(RouteValidatorLive.layerOnWorkers)
    )
    const configSource = ConfigSourceLive.layerOnWorkers(loaded.config, sources)
    // Uptime samples the health the test sets, on the live clock (a second apart).
    const core = Layer.merge(RouteListLive.layer, UptimeLive.layer).pipe(
      Layer.provideMerge(
        Layer.merge(
          healthOverRoutes(options.health ?? {}),
          FilesLive.layer({ configFile, routesDir, ...options.fileTimeouts })
        )
      ),
      Layer.provideMerge(Layer.merge(routes, configSource)),
      Layer.provideMerge(
        Layer.mergeAll(
          authRequests,
          hypervisor,
          DockerLive.layer(loaded.config.docker),
          CertificatesLive.layer({
            certificates: loaded.config.certificates,
            acme: loaded.config.acme,
            dataDir: path.join(dir, "data")
          })
        )
      ),
      Layer.provideMerge(ValidationWorkersLive.layerWith(options.validation ?? {}))
    )
    // The real sign-in and key management, with the users of the config (none unless `configYaml` has some).
    const authentication = Layer.mergeAll(
      ApiKeysLive.layer,
      LoginLive.layer({ users: loaded.config.auth.users, oidc: undefined, publicUrl: "http://127.0.0.1" })
    ).pipe(
      Layer.provideMerge(Layer.merge(AuthenticationLive.layer, testKey)),
      Layer.provideMerge(SessionsLive.layer({ ttlMs: loaded.config.auth.sessionTtlMs }))
    )
    const description = Layer.succeed(ServerDescription)(
      ServerDescription.of({
        version: { version: "1.2.3", commit: "abc" },
        openApi: Effect.succeed({ json: { openapi: "3.1.0" }, yamlText: "openapi: 3.1.0\n" })
      })
    )
    const policy = Layer.succeed(WebSocketPolicy)({ ...WebSocketPolicy.defaultValue(), ...options.policy })
    const app = layerHttpApp({
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      maxConcurrentRequestsPerClient: options.maxConcurrentRequestsPerClient,
      trustedProxy: options.trustedProxy,
      bodiesInFlight: options.bodiesInFlight
    }).pipe(
      Layer.provideMerge(layerNodeHttpServer({ host: "127.0.0.1", port: 0 })),
      Layer.provideMerge(Layer.mergeAll(core, authentication, description, policy)),
      Layer.provide(options.accessLog === undefined ? Layer.empty : Layer.succeed(AccessLogWriter)(options.accessLog)),
      Layer.provideMerge(events),
      Layer.provideMerge(repositories),
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
      health: Context.get(context, HealthMemory),
      breakHealthStreams: Context.get(context, HealthFault).break,
      openStreams: Context.get(context, WebSocketConnections).open,
      closingStreams: Context.get(context, WebSocketConnections).closing,
      queuedBytes: Context.get(context, WebSocketConnections).queuedBytes,
      validationWorkers: Context.get(context, ValidationWorkers),
      uptimeWatchers: Context.get(context, UptimeWatcherCount).get
    }
  })
