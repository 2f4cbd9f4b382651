import * as path from "node:path"
import {
  ApiKeyRepository,
  ApiKeysLive,
  AuthenticationLive,
  AuthRequestsLive,
  CertificatesLive,
  ConfigSourceLive,
  type ConfigSources,
  ConfigWatcher,
  DockerLive,
  DockerRouteProvider,
  EventBus,
  EventRepository,
  FileRoutes,
  FilesLive,
  type GatehouseConfig,
  HealthLive,
  HypervisorLive,
  holdStoreLock,
  LoginLive,
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
  UptimeRepository
} from "@gatehouse-edge/core"
import * as Layer from "effect/Layer"
import { ensureAdminKey } from "./AdminKey.js"

/** What the core needs besides the validated configuration. */
export interface CoreOptions {
  readonly config: GatehouseConfig
  /** The environment, flags and working directory the config was loaded with (for validating edits). */
  readonly sources: Omit<ConfigSources, "file">
  /** Refuse to start when a route file is invalid (instead of starting with the valid ones). */
  readonly strict?: boolean | undefined
}

/** The origin browsers reach the server by: `http.public_url`, else `http://<listen address>`. */
export const publicUrlOf = (config: GatehouseConfig): string => {
  if (config.http.publicUrl !== undefined) return config.http.publicUrl
  const host = config.http.host === "0.0.0.0" || config.http.host === "::" ? "127.0.0.1" : config.http.host
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.http.port}`
}

/** The SQLite file of the embedded store. */
export const databasePath = (config: GatehouseConfig) => path.join(config.dataDir, "gatehouse.db")

/**
 * Every core service of a running server, independent of any transport: store → events → route table (with the
 * route files as its first provider) → health, route list, uptime, files, config and the file watcher,
 * authentication, sessions, sign-in and API keys, auth requests, the Proxmox VE clusters, the Docker engines, the
 * certificates.
 * HTTP and gRPC are built on this same layer. Closing it stops monitors and the watcher and closes the store.
 */
export const layerCore = (options: CoreOptions) => {
  const { config } = options
  // One server per data dir: the lock is taken before the store is opened, and held until the store is closed.
  const store = StoreLive.layer({ filename: databasePath(config) }).pipe(
    Layer.provide(Layer.effectDiscard(holdStoreLock(config.dataDir)))
  )
  const repositories = Layer.mergeAll(
    EventRepository.layer,
    ApiKeyRepository.layer,
    SessionRepository.layer,
    OidcLoginRepository.layer,
    ServerSecrets.layer,
    UptimeRepository.layer
  ).pipe(Layer.provide(store))
  const events = EventBus.layer({ historyCap: config.events.history })
  const validator = RouteValidatorLive.layer
  const routeTable = FileRoutes.layer({ routesDir: config.routesDir, strict: options.strict }).pipe(
    Layer.provideMerge(RoutesLive.layer),
    Layer.provideMerge(validator)
  )
  const configSource = ConfigSourceLive.layer(config, options.sources)
  const files = FilesLive.layer({ configFile: config.configFile, routesDir: config.routesDir })
  const watcher = ConfigWatcher.layer({ configFile: config.configFile, routesDir: config.routesDir })
  const adminKey = Layer.effectDiscard(ensureAdminKey(config.dataDir))
  // Sessions (signed cookies, CSRF) → authentication of keys and cookies → API key management and sign-in.
  const sessions = SessionsLive.layer({
    ttlMs: config.auth.sessionTtlMs,
    currentRoles: LoginLive.currentSessionRoles({ users: config.auth.users, oidc: config.auth.oidc })
  })
  const login = LoginLive.layer({ users: config.auth.users, oidc: config.auth.oidc, publicUrl: publicUrlOf(config) })
  const authentication = Layer.mergeAll(ApiKeysLive.layer, login).pipe(
    Layer.provideMerge(Layer.merge(AuthenticationLive.layer, adminKey)),
    Layer.provideMerge(sessions)
  )
  const authRequests = AuthRequestsLive.layer(config.authRequests).pipe(Layer.provide(store))
  // SSH connections are opened on the first command and pooled per node; none exist without SSH config.
  const hypervisor = HypervisorLive.layer(config.hypervisor).pipe(Layer.provide(NodeShellLive.layer))
  // One dockerode client per configured engine; nothing is called until a request needs it.
  const docker = DockerLive.layer(config.docker)
  // Loads file and ACME certificates, watches the files, and schedules ACME renewals (obtaining missing ones now).
  const certificates = CertificatesLive.layer({
    certificates: config.certificates,
    acme: config.acme,
    dataDir: config.dataDir
  })

  // Uptime samples health every second and keeps its history in the store; it closes before the store does, so
  // its last samples are written on shutdown.
  return Layer.merge(RouteListLive.layer, UptimeLive.layer).pipe(
    Layer.provideMerge(
      Layer.mergeAll(HealthLive.layer, files, watcher, authRequests, DockerRouteProvider.layer, certificates)
    ),
    // Below health and the route list (both ask the hypervisor which routes target a guest) and the Docker route
    // provider (which reads the engines).
    Layer.provideMerge(Layer.merge(hypervisor, docker)),
    Layer.provideMerge(Layer.merge(routeTable, configSource)),
    Layer.provideMerge(authentication),
    Layer.provideMerge(events),
    Layer.provideMerge(repositories)
  )
}
