import type { ConfigFile } from "./ConfigFile.js"

/** The server configuration after defaults, overrides and path resolution: what the server actually runs with. */
export interface GatehouseConfig {
  /** The config file it was read from (absolute), or `undefined` when running on the embedded defaults. */
  readonly configFile: string | undefined
  readonly http: { readonly host: string; readonly port: number; readonly maxBodyBytes: number }
  readonly grpc: {
    readonly host: string
    readonly port: number
    readonly unixSocket: string | undefined
    readonly insecure: boolean
    readonly tls: { readonly cert: string; readonly key: string } | undefined
  }
  readonly dataDir: string
  readonly routesDir: string
  /** Whether users or OIDC are configured. Without them the server only binds loopback. */
  readonly authConfigured: boolean
  readonly events: { readonly history: number }
  readonly log: { readonly level: "debug" | "info" | "warn" | "error"; readonly format: "json" | "pretty" | "auto" }
  /** The validated file, for the sections later features read (auth, hypervisor, docker, certificates, ...). */
  readonly file: ConfigFile
}

/** The embedded defaults (SPEC §13). */
export const ConfigDefaults = {
  httpAddr: "127.0.0.1:8888",
  grpcAddr: "127.0.0.1:50443",
  maxBodyBytes: 1024 * 1024,
  dataDir: "./data",
  routesDir: "./routes",
  eventsHistory: 1000
} as const
