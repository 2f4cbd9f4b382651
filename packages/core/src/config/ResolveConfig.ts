import type * as Redacted from "effect/Redacted"
import { normalizeFile } from "../hypervisor/NodeCommands.js"
import type { ConfigFile } from "./ConfigFile.js"
import { isAuthConfigured, listenAddresses } from "./ConfigRules.js"
import type { AcmeConfig, ProxmoxClusterConfig, ProxmoxCredentials } from "./ConfigSections.js"
import { ConfigDefaults, type GatehouseConfig } from "./GatehouseConfig.js"
import type { SecretSource } from "./SecretSource.js"

type Path = ReadonlyArray<string | number>

/** Makes the path written at a config key absolute (against the config file's directory, or for a flag or variable the working directory). */
export type PathResolver = (key: Path, value: string) => string

type Cluster = NonNullable<NonNullable<ConfigFile["hypervisor"]>["clusters"]>[number]

const optionalPath = (resolve: PathResolver, key: Path, value: string | undefined) =>
  value === undefined ? undefined : resolve(key, value)

const secretSource = (
  resolve: PathResolver,
  at: Path,
  key: string,
  inline: Redacted.Redacted<string> | undefined,
  file: string | undefined
): SecretSource | undefined => {
  if (inline !== undefined) return inline
  if (file === undefined) return undefined
  const fileKey = [...at, `${key}_file`]
  return { _tag: "File", path: resolve(fileKey, file), key: fileKey.join(".") }
}

// `checkConfigRules` has made sure a token comes with its secret and a user with a password.
const credentials = (resolve: PathResolver, at: Path, cluster: Cluster): ProxmoxCredentials =>
  cluster.token_id !== undefined
    ? {
        _tag: "Token",
        tokenId: cluster.token_id,
        secret: secretSource(resolve, at, "secret", cluster.secret, cluster.secret_file)!
      }
    : {
        _tag: "Password",
        username: cluster.username!,
        password: secretSource(resolve, at, "password", cluster.password, cluster.password_file)!,
        realm: cluster.realm
      }

const proxmoxCluster = (resolve: PathResolver, cluster: Cluster, index: number): ProxmoxClusterConfig => {
  const at = ["hypervisor", "clusters", index]
  const ssh = cluster.ssh
  const sshPort = ssh?.port ?? ConfigDefaults.sshPort
  return {
    name: cluster.name,
    url: cluster.url,
    credentials: credentials(resolve, at, cluster),
    tls: {
      fingerprint: cluster.tls?.fingerprint,
      caFile: optionalPath(resolve, [...at, "tls", "ca_file"], cluster.tls?.ca_file),
      insecure: cluster.tls?.insecure ?? false
    },
    refreshIntervalMs: cluster.refresh_interval ?? ConfigDefaults.proxmoxRefreshIntervalMs,
    lookupConcurrency: cluster.lookup_concurrency ?? ConfigDefaults.proxmoxLookupConcurrency,
    ssh:
      ssh === undefined
        ? undefined
        : {
            user: ssh.user ?? ConfigDefaults.sshUser,
            port: sshPort,
            privateKey: optionalPath(resolve, [...at, "ssh", "private_key"], ssh.private_key),
            nodes: Object.fromEntries(
              Object.entries(ssh.nodes ?? {}).map(([name, node]) => [
                name,
                { host: node.host, port: node.port ?? sshPort, hostKey: node.host_key }
              ])
            )
          }
  }
}

// `checkAcmeRules` has made sure every certificate's challenge is configured and dns01 has its key secret.
const acmeConfig = (resolve: PathResolver, acme: NonNullable<ConfigFile["acme"]>): AcmeConfig => {
  const dns01 = acme.dns01
  return {
    directory: acme.directory,
    email: acme.email,
    caFile: optionalPath(resolve, ["acme", "ca_file"], acme.ca_file),
    renewBeforeMs: acme.renew_before ?? ConfigDefaults.acmeRenewBeforeMs,
    http01: acme.http01?.addr,
    dns01:
      dns01 === undefined
        ? undefined
        : {
            provider: dns01.provider,
            server: dns01.server,
            zone: dns01.zone.toLowerCase().replace(/\.$/, ""),
            keyName: dns01.key_name,
            keyAlgorithm: dns01.key_algorithm ?? "hmac-sha256",
            keySecret: secretSource(resolve, ["acme", "dns01"], "key_secret", dns01.key_secret, dns01.key_secret_file)!,
            ttlSeconds: Math.ceil((dns01.ttl ?? ConfigDefaults.acmeDnsTtlSeconds * 1000) / 1000),
            propagationTimeoutMs: dns01.propagation_timeout ?? ConfigDefaults.acmeDnsPropagationTimeoutMs
          },
    certificates: (acme.certificates ?? []).map((certificate) => ({
      name: certificate.name,
      domains: certificate.domains.map((domain) => domain.toLowerCase()),
      challenge: certificate.challenge ?? (acme.http01 === undefined && acme.dns01 !== undefined ? "dns-01" : "http-01")
    }))
  }
}

// A wildcard listen host is not a name anyone reaches the server by; the server adds its interfaces itself.
const isWildcard = (host: string) => host === "0.0.0.0" || host === "::"

const allowedHosts = (listenHost: string, configured: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...new Set(
    [...ConfigDefaults.allowedHosts, ...(isWildcard(listenHost) ? [] : [listenHost]), ...configured].map((host) =>
      host.toLowerCase()
    )
  )
]

/**
 * The request bodies' budgets: the defaults grow with `http.max_body` (a body the server accepts always fits; the
 * rules refuse explicit ones smaller than it), and one client's share is never more than everyone's.
 */
const bodiesInFlight = (file: ConfigFile) => {
  const maxBody = file.http?.max_body ?? ConfigDefaults.maxBodyBytes
  const limits = file.http?.limits
  const perClient =
    limits?.bodies_in_flight_per_client ?? Math.max(ConfigDefaults.bodiesInFlightPerClientBytes, maxBody)
  const total = limits?.bodies_in_flight ?? Math.max(ConfigDefaults.bodiesInFlightBytes, perClient)
  return { totalBytes: total, perClientBytes: Math.min(perClient, total) }
}

/**
 * Turns a validated file (overrides applied, cross-key rules passed) into the configuration the server runs
 * with: defaults applied, every path absolute, every secret `Redacted` or a {@link SecretSource} to read later.
 */
export const resolveConfig = (
  file: ConfigFile,
  resolve: PathResolver,
  configFile: string | undefined
): GatehouseConfig => {
  const { http, grpc } = listenAddresses(file)
  const oidc = file.auth?.oidc
  // Browsers send their origin normalised (`https://h`, not `https://h:443`; a non-ASCII host in punycode): the
  // origin check compares it with this, the OIDC redirect URI is built on it, cookies are Secure by its scheme.
  const publicUrl = file.http?.public_url === undefined ? undefined : new URL(file.http.public_url)
  return {
    configFile,
    http: {
      host: http.host,
      port: http.port,
      maxBodyBytes: file.http?.max_body ?? ConfigDefaults.maxBodyBytes,
      // A proxy in front passes the public name on as Host.
      allowedHosts: allowedHosts(http.host, [
        ...(file.http?.allowed_hosts ?? []),
        // `[2001:db8::1]` is spelled as `Host` checks compare it: without brackets.
        ...(publicUrl === undefined ? [] : [publicUrl.hostname.replace(/^\[(.*)\]$/, "$1")])
      ]),
      maxRequestsPerClient: file.http?.limits?.requests_per_client ?? ConfigDefaults.maxRequestsPerClient,
      maxStreamsPerClient: file.http?.limits?.streams_per_client ?? ConfigDefaults.maxStreamsPerClient,
      maxStreams: file.http?.limits?.streams ?? ConfigDefaults.maxStreams,
      // One client's budget is never more than everyone's.
      maxQueuedBytesPerClient: Math.min(
        file.http?.limits?.queued_per_client ?? ConfigDefaults.maxQueuedBytesPerClient,
        file.http?.limits?.queued ?? ConfigDefaults.maxQueuedBytes
      ),
      maxQueuedBytes: file.http?.limits?.queued ?? ConfigDefaults.maxQueuedBytes,
      // Each WebSocket is a connection, and so is each request in flight on HTTP/1.1: a client may hold both.
      maxConnectionsPerClient:
        file.http?.limits?.connections_per_client ??
        (file.http?.limits?.streams_per_client ?? ConfigDefaults.maxStreamsPerClient) +
          (file.http?.limits?.requests_per_client ?? ConfigDefaults.maxRequestsPerClient),
      maxConnections: file.http?.limits?.connections,
      bodiesInFlight: bodiesInFlight(file),
      publicUrl: publicUrl?.origin,
      secureCookies: publicUrl?.protocol === "https:",
      trustedProxies: (file.http?.trusted_proxies ?? []).map((entry) =>
        entry.includes("/") ? entry : `${entry}/${entry.includes(":") ? 128 : 32}`
      )
    },
    grpc: {
      host: grpc.host,
      port: grpc.port,
      unixSocket: optionalPath(resolve, ["grpc", "unix_socket"], file.grpc?.unix_socket),
      insecure: file.grpc?.insecure ?? false,
      // The HTTP API's defaults: a client's calls and streams cost about the same on either transport.
      limits: {
        callsPerClient: file.grpc?.limits?.calls_per_client ?? ConfigDefaults.maxRequestsPerClient,
        streamsPerClient: file.grpc?.limits?.streams_per_client ?? ConfigDefaults.maxStreamsPerClient,
        streams: file.grpc?.limits?.streams ?? ConfigDefaults.maxStreams,
        connectionsPerClient:
          file.grpc?.limits?.connections_per_client ??
          (file.grpc?.limits?.calls_per_client ?? ConfigDefaults.maxRequestsPerClient) +
            (file.grpc?.limits?.streams_per_client ?? ConfigDefaults.maxStreamsPerClient),
        connections: file.grpc?.limits?.connections
      },
      tls:
        file.grpc?.tls === undefined
          ? undefined
          : {
              cert: resolve(["grpc", "tls", "cert"], file.grpc.tls.cert),
              key: resolve(["grpc", "tls", "key"], file.grpc.tls.key)
            }
    },
    dataDir: resolve(["data_dir"], file.data_dir ?? ConfigDefaults.dataDir),
    routesDir: resolve(["routes_dir"], file.routes_dir ?? ConfigDefaults.routesDir),
    auth: {
      users: (file.auth?.users ?? []).map((user) => ({
        name: user.name,
        role: user.role ?? "admin",
        passwordHash: user.password_hash
      })),
      oidc:
        oidc === undefined
          ? undefined
          : {
              issuer: oidc.issuer,
              clientId: oidc.client_id,
              clientSecret: secretSource(
                resolve,
                ["auth", "oidc"],
                "client_secret",
                oidc.client_secret,
                oidc.client_secret_file
              ),
              scopes: oidc.scopes ?? ConfigDefaults.oidcScopes,
              allowedUsers: oidc.allowed_users ?? [],
              allowedGroups: oidc.allowed_groups ?? [],
              allowAnyUser: oidc.allow_any_user ?? false,
              groupsClaim: oidc.groups_claim ?? "groups",
              roles: {
                admin: oidc.roles?.admin ?? [],
                operator: oidc.roles?.operator ?? [],
                viewer: oidc.roles?.viewer ?? []
              },
              // Admin only for users the operator named (by email, id or group) and did not tell apart by role.
              defaultRole:
                oidc.default_role ?? (oidc.allow_any_user === true || oidc.roles !== undefined ? "viewer" : "admin")
            },
      sessionTtlMs: file.auth?.session_ttl ?? ConfigDefaults.sessionTtlMs
    },
    authConfigured: isAuthConfigured(file),
    hypervisor: {
      clusters: (file.hypervisor?.clusters ?? []).map((c, i) => proxmoxCluster(resolve, c, i)),
      // Spelled one way (`/var/log/` and `//var/log` are `/var/log`): the tail check compares prefixes.
      tailPaths: [...new Set((file.hypervisor?.tail_paths ?? ConfigDefaults.tailPaths).map(normalizeFile))]
    },
    docker: {
      hosts: (file.docker?.hosts ?? []).map((host, index) => {
        const at = ["docker", "hosts", index, "tls"]
        return {
          name: host.name,
          url: host.url,
          tls:
            host.tls === undefined
              ? undefined
              : {
                  ca: optionalPath(resolve, [...at, "ca"], host.tls.ca),
                  cert: optionalPath(resolve, [...at, "cert"], host.tls.cert),
                  key: optionalPath(resolve, [...at, "key"], host.tls.key)
                }
        }
      })
    },
    certificates: (file.certificates ?? []).map((certificate, index) => ({
      name: certificate.name,
      cert: resolve(["certificates", index, "cert"], certificate.cert),
      key: resolve(["certificates", index, "key"], certificate.key)
    })),
    acme: file.acme === undefined ? undefined : acmeConfig(resolve, file.acme),
    authRequests: {
      ttlMs: file.auth_requests?.ttl ?? ConfigDefaults.authRequestTtlMs,
      maxPending: file.auth_requests?.max_pending ?? ConfigDefaults.authRequestsMaxPending,
      retentionMs: file.auth_requests?.retention ?? ConfigDefaults.authRequestsRetentionMs,
      expiredRetentionMs: file.auth_requests?.expired_retention ?? ConfigDefaults.authRequestsExpiredRetentionMs,
      expiredMax: file.auth_requests?.expired_max ?? ConfigDefaults.authRequestsExpiredMax,
      createPerSecond: file.auth_requests?.create_rate ?? ConfigDefaults.authRequestsCreatePerSecond,
      createBurst: file.auth_requests?.create_burst ?? ConfigDefaults.authRequestsCreateBurst,
      ipv4Prefix: file.auth_requests?.ipv4_prefix ?? ConfigDefaults.authRequestsIpv4Prefix,
      ipv6Prefix: file.auth_requests?.ipv6_prefix ?? ConfigDefaults.authRequestsIpv6Prefix
    },
    events: { history: file.events?.history ?? ConfigDefaults.eventsHistory },
    log: { level: file.log?.level ?? "info", format: file.log?.format ?? "auto" },
    file
  }
}
