import * as Duration from "effect/Duration"
import { defaultCreateRatePolicy } from "../authrequests/AuthRequestCreateLimit.js"
import { maxUndecidedKept, undecidedRetention } from "../authrequests/AuthRequestUndecided.js"
import type { ConfigFile } from "./ConfigFile.js"
import type {
  AcmeConfig,
  AuthConfig,
  AuthRequestsConfig,
  CertificateConfig,
  DockerConfig,
  GrpcConfig,
  HttpConfig,
  HypervisorConfig
} from "./ConfigSections.js"

/**
 * The server configuration after defaults, overrides and path resolution: what the server actually runs with.
 * Each feature reads its own typed section. Secrets are `Redacted` (or a file still to be read), so printing or
 * serializing the whole config shows `<redacted>`, never a secret.
 */
export interface GatehouseConfig {
  /** The config file it was read from (absolute), or `undefined` when running on the embedded defaults. */
  readonly configFile: string | undefined
  readonly http: HttpConfig
  readonly grpc: GrpcConfig
  readonly dataDir: string
  readonly routesDir: string
  readonly auth: AuthConfig
  /** Whether users or OIDC are configured. Without them the server only binds loopback. */
  readonly authConfigured: boolean
  readonly hypervisor: HypervisorConfig
  readonly docker: DockerConfig
  readonly certificates: ReadonlyArray<CertificateConfig>
  /** `undefined` when no ACME section is configured. */
  readonly acme: AcmeConfig | undefined
  readonly authRequests: AuthRequestsConfig
  readonly events: { readonly history: number }
  readonly log: { readonly level: "debug" | "info" | "warn" | "error"; readonly format: "json" | "pretty" | "auto" }
  /** The validated file with overrides applied, as written (relative paths, no defaults): for the reload diff. */
  readonly file: ConfigFile
}

/** The embedded defaults (SPEC §13). */
export const ConfigDefaults = {
  httpAddr: "127.0.0.1:8888",
  grpcAddr: "127.0.0.1:50443",
  maxBodyBytes: 1024 * 1024,
  allowedHosts: ["localhost", "127.0.0.1", "::1"],
  maxRequestsPerClient: 256,
  maxStreamsPerClient: 1000,
  maxStreams: 4000,
  maxQueuedBytesPerClient: 16 * 1024 * 1024,
  maxQueuedBytes: 256 * 1024 * 1024,
  bodiesInFlightBytes: 64 * 1024 * 1024,
  bodiesInFlightPerClientBytes: 16 * 1024 * 1024,
  dataDir: "./data",
  routesDir: "./routes",
  eventsHistory: 1000,
  sessionTtlMs: 24 * 3_600_000,
  oidcScopes: ["openid", "profile", "email"],
  proxmoxRefreshIntervalMs: 3_000,
  proxmoxLookupConcurrency: 3,
  tailPaths: ["/var/log"],
  sshUser: "root",
  sshPort: 22,
  authRequestTtlMs: 15 * 60_000,
  authRequestsMaxPending: 1024,
  authRequestsRetentionMs: 30 * 24 * 3_600_000,
  authRequestsExpiredRetentionMs: Duration.toMillis(undecidedRetention),
  authRequestsExpiredMax: maxUndecidedKept,
  authRequestsCreatePerSecond: defaultCreateRatePolicy.perSecond,
  authRequestsCreateBurst: defaultCreateRatePolicy.burst,
  authRequestsIpv4Prefix: "100.64.0.0/10",
  authRequestsIpv6Prefix: "fd7a:115c:a1e0::/48",
  acmeRenewBeforeMs: 30 * 24 * 3_600_000,
  acmeDnsTtlSeconds: 60,
  acmeDnsPropagationTimeoutMs: 60_000
} as const
