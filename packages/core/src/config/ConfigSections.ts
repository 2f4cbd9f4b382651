import type * as Redacted from "effect/Redacted"
import type { SecretSource } from "./SecretSource.js"

// The typed sections features read. Paths are absolute, durations in milliseconds, defaults applied, secrets
// `Redacted` or a SecretSource: a feature never parses, resolves or defaults a config value itself.

/** `http`: the HTTP API listener. */
export interface HttpConfig {
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  /**
   * Names clients may reach the server by (`Host`, and the host of a WebSocket `Origin`): `localhost`,
   * `127.0.0.1`, `::1`, the listen host unless it is a wildcard, then `http.allowed_hosts`. Anything else is
   * refused, which keeps DNS-rebinding pages out.
   */
  readonly allowedHosts: ReadonlyArray<string>
  /** Requests one client address may have in flight (429 beyond). */
  readonly maxRequestsPerClient: number
  /** WebSocket streams one client address may hold open (429 beyond). */
  readonly maxStreamsPerClient: number
  /** WebSocket streams of the whole server (429 beyond). */
  readonly maxStreams: number
  /**
   * Bytes one client address's WebSocket streams together may have queued unread; past it a stream with more to
   * send waits for them to drain, and is closed with 1008 after the drain time.
   */
  readonly maxQueuedBytesPerClient: number
  /** The same for all clients together. */
  readonly maxQueuedBytes: number
  /**
   * TCP connections one client (the socket's peer: an IPv4 address, an IPv6 /64) may hold open; past it a new one
   * is closed unread. Default: its streams and requests at once (each WebSocket is a connection). A trusted
   * proxy counts only towards {@link maxConnections}.
   */
  readonly maxConnectionsPerClient: number
  /**
   * TCP connections of the whole listener, or `undefined`: then a share of the process's open-file limit, read
   * when the server starts (the limit is the process's, not the file's).
   */
  readonly maxConnections: number | undefined
  /**
   * Bytes the request bodies being read may hold, all clients together and one client (an address, an IPv6 /64);
   * a body that does not fit waits for none and is refused (503, or 429 past its client's share). Each is at
   * least `maxBodyBytes`, so a body the server accepts can always fit.
   */
  readonly bodiesInFlight: { readonly totalBytes: number; readonly perClientBytes: number }
  /**
   * The origin browsers use (`http.public_url`, e.g. behind a TLS-terminating proxy), or `undefined`: then
   * `http://<addr>`. Sign-in redirects are built on it, and WebSocket upgrades may come from it. Normalised as
   * browsers send `Origin`: `https://h:443/` is `https://h`, a non-ASCII host is in punycode.
   */
  readonly publicUrl: string | undefined
  /** Whether cookies are `Secure`: the public URL is https. */
  readonly secureCookies: boolean
  /**
   * Reverse proxies (CIDR prefixes; a plain address is a /32 or /128) whose `X-Forwarded-For` names the client.
   * Empty: the client is the socket's peer.
   */
  readonly trustedProxies: ReadonlyArray<string>
}

/** `grpc`: the gRPC listener, and an optional unix socket without authentication. */
export interface GrpcConfig {
  readonly host: string
  readonly port: number
  readonly unixSocket: string | undefined
  readonly insecure: boolean
  readonly tls: TlsFilesConfig | undefined
  /**
   * Calls and streams at once, per client (an IPv4 address, an IPv6 /64) and streams in total; TCP connections
   * per client (default: its calls and streams at once) and in total (`undefined`: a share of the process's
   * open-file limit, read when the server starts).
   */
  readonly limits: {
    readonly callsPerClient: number
    readonly streamsPerClient: number
    readonly streams: number
    readonly connectionsPerClient: number
    readonly connections: number | undefined
  }
}

/** A certificate and its private key, as absolute paths. */
export interface TlsFilesConfig {
  readonly cert: string
  readonly key: string
}

/** `auth`: who may sign in to the API and the UI. */
export interface AuthConfig {
  readonly users: ReadonlyArray<LocalUserConfig>
  readonly oidc: OidcConfig | undefined
  readonly sessionTtlMs: number
}

/** `auth.users[]`: a local user; the hash is a secret too (it can be attacked offline). */
export interface LocalUserConfig {
  readonly name: string
  /** The user's role (default `admin`: the operator wrote the user into the config). */
  readonly role: "admin" | "operator" | "viewer"
  readonly passwordHash: Redacted.Redacted<string>
}

/** `auth.oidc`: sign-in through an OpenID provider. */
export interface OidcConfig {
  readonly issuer: string
  readonly clientId: string
  /** `undefined` for a public client. */
  readonly clientSecret: SecretSource | undefined
  readonly scopes: ReadonlyArray<string>
  readonly allowedUsers: ReadonlyArray<string>
  readonly allowedGroups: ReadonlyArray<string>
  /** `allow_any_user`: every account the provider signs in is admitted (else the lists above must name someone). */
  readonly allowAnyUser: boolean
  /** The claim (ID token or userinfo) that lists a user's groups. */
  readonly groupsClaim: string
  /** Groups → role: a user gets the highest role one of their groups maps to. */
  readonly roles: {
    readonly admin: ReadonlyArray<string>
    readonly operator: ReadonlyArray<string>
    readonly viewer: ReadonlyArray<string>
  }
  /**
   * The role of an admitted user none of whose groups is mapped (default: `admin` for users the allow-lists
   * admit when there are no `roles`; `viewer` with `roles` or `allow_any_user`).
   */
  readonly defaultRole: "admin" | "operator" | "viewer"
}

/** `hypervisor`: the Proxmox VE clusters. */
export interface HypervisorConfig {
  readonly clusters: ReadonlyArray<ProxmoxClusterConfig>
  /**
   * `hypervisor.tail_paths`: the directories (absolute, normalised, default `/var/log`) a file followed by
   * `/hypervisor/tail` must be under, on nodes and in containers alike.
   */
  readonly tailPaths: ReadonlyArray<string>
}

/** How Gatehouse signs in to a Proxmox VE cluster: an API token, or a user's password (ticket). */
export type ProxmoxCredentials =
  | { readonly _tag: "Token"; readonly tokenId: string; readonly secret: SecretSource }
  | {
      readonly _tag: "Password"
      readonly username: string
      readonly password: SecretSource
      /** `undefined` when the username carries it (`root@pam`). */
      readonly realm: string | undefined
    }

/** `hypervisor.clusters[]`: one Proxmox VE cluster (or single node). */
export interface ProxmoxClusterConfig {
  readonly name: string
  readonly url: string
  readonly credentials: ProxmoxCredentials
  readonly tls: {
    readonly fingerprint: string | undefined
    readonly caFile: string | undefined
    readonly insecure: boolean
  }
  readonly refreshIntervalMs: number
  readonly lookupConcurrency: number
  /** Command access to the nodes (journal, tail, `pct exec`); `undefined` when not configured. */
  readonly ssh: ProxmoxSshConfig | undefined
}

/** `hypervisor.clusters[].ssh`. */
export interface ProxmoxSshConfig {
  readonly user: string
  readonly port: number
  readonly privateKey: string | undefined
  /** By node name; a node's port defaults to the cluster's SSH port. */
  readonly nodes: Readonly<Record<string, SshNodeConfig>>
}

/** `hypervisor.clusters[].ssh.nodes.<name>`. */
export interface SshNodeConfig {
  readonly host: string
  readonly port: number
  readonly hostKey: string | undefined
}

/** `docker`: the Docker engines. */
export interface DockerConfig {
  readonly hosts: ReadonlyArray<DockerHostConfig>
}

/** `docker.hosts[]`: one Docker engine; TLS paths absolute. */
export interface DockerHostConfig {
  readonly name: string
  readonly url: string
  readonly tls:
    | { readonly ca: string | undefined; readonly cert: string | undefined; readonly key: string | undefined }
    | undefined
}

/** `certificates[]`: a certificate served by name; paths absolute. */
export interface CertificateConfig {
  readonly name: string
  readonly cert: string
  readonly key: string
}

/** `acme`: certificates obtained from an ACME CA (RFC 8555) and renewed by Gatehouse; paths absolute. */
export interface AcmeConfig {
  readonly directory: string
  readonly email: string | undefined
  /** A CA certificate (PEM) trusted for the directory's HTTPS besides the system's roots. */
  readonly caFile: string | undefined
  /** Renew at most this long before expiry (and in the last third of a shorter lifetime). */
  readonly renewBeforeMs: number
  /** Where HTTP-01 challenges are answered (bound only while an order runs). */
  readonly http01: { readonly host: string; readonly port: number } | undefined
  readonly dns01: AcmeDns01Config | undefined
  readonly certificates: ReadonlyArray<AcmeCertificateConfig>
}

/** `acme.certificates[]`: one certificate of one or more names, and how its names are validated. */
export interface AcmeCertificateConfig {
  readonly name: string
  readonly domains: ReadonlyArray<string>
  readonly challenge: "http-01" | "dns-01"
}

/** `acme.dns01`: DNS-01 through RFC 2136 dynamic updates signed with TSIG. */
export interface AcmeDns01Config {
  readonly provider: "rfc2136"
  readonly server: { readonly host: string; readonly port: number }
  readonly zone: string
  readonly keyName: string
  readonly keyAlgorithm: "hmac-sha256" | "hmac-sha384" | "hmac-sha512"
  readonly keySecret: SecretSource
  readonly ttlSeconds: number
  readonly propagationTimeoutMs: number
}

/** `auth_requests`: pending registrations and SSH checks. */
export interface AuthRequestsConfig {
  readonly ttlMs: number
  /** Pending requests of each kind (registration, ssh_check) at most; past it the oldest of that kind expires. */
  readonly maxPending: number
  /** How long decided requests stay listable as history. */
  readonly retentionMs: number
  /** How long requests that expired without a verdict stay listable, and how many at most (oldest go first). */
  readonly expiredRetentionMs: number
  readonly expiredMax: number
  /**
   * Creates a second, and at once, by one credential that may create but not decide (an SSH gate's key): past it,
   * `RateLimited`. Operators' and admins' keys are not held.
   */
  readonly createPerSecond: number
  readonly createBurst: number
  readonly ipv4Prefix: string
  readonly ipv6Prefix: string
}
