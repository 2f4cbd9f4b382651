import { SshNotConfigured } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { ProxmoxClusterConfig } from "../config/ConfigSections.js"
import { readSecret, SecretUnreadable } from "../config/ReadSecret.js"
import { readTextFile } from "../config/ReadTextFile.js"
import type { Events } from "../events/Events.js"
import type { SshTarget } from "./NodeShell.js"
import { makePveClient, type PveClient, type PveCredentials } from "./PveClient.js"
import { makeResourceCache, type ResourceCache } from "./ResourceCache.js"

/** One configured cluster at run time: its API client, its resource cache and how to reach its nodes over SSH. */
export interface ClusterRuntime {
  readonly name: string
  readonly client: PveClient
  readonly cache: ResourceCache
  /** The SSH target of a node, or `SshNotConfigured`. */
  readonly sshTarget: (node: string) => Effect.Effect<SshTarget, SshNotConfigured>
}

// A file the cluster needs at start; the failure names the config key, so the operator knows which setting to fix.
const readFileFor = (key: string, path: string) =>
  readTextFile(path).pipe(Effect.mapError((error) => new SecretUnreadable({ key, path, reason: error.reason })))

/** Timing shared by every cluster. */
export interface ClusterTiming {
  readonly requestTimeoutMs: number
  readonly addressRefreshMs: number
}

/**
 * Starts one cluster: reads its secret, CA file and SSH private key (an unreadable file fails the start with a
 * message naming the setting and the path), opens the API client and starts the cache's poller. Everything stops with the scope.
 */
export const startCluster = Effect.fn("Hypervisor.startCluster")(function* (
  config: ProxmoxClusterConfig,
  timing: ClusterTiming,
  events: Events["Service"]
) {
  const credentials: PveCredentials =
    config.credentials._tag === "Token"
      ? { _tag: "Token", tokenId: config.credentials.tokenId, secret: yield* readSecret(config.credentials.secret) }
      : {
          _tag: "Password",
          username: config.credentials.username,
          password: yield* readSecret(config.credentials.password),
          realm: config.credentials.realm
        }
  const at = `hypervisor.clusters (${config.name})`
  const ca = config.tls.caFile === undefined ? undefined : yield* readFileFor(`${at} tls.ca_file`, config.tls.caFile)
  const client = yield* makePveClient({
    cluster: config.name,
    url: config.url,
    credentials,
    tls: { fingerprint: config.tls.fingerprint, ca, insecure: config.tls.insecure },
    timeoutMs: timing.requestTimeoutMs
  })
  const cache = yield* makeResourceCache(
    client,
    {
      refreshIntervalMs: config.refreshIntervalMs,
      lookupConcurrency: config.lookupConcurrency,
      addressRefreshMs: timing.addressRefreshMs
    },
    events
  )
  const ssh = config.ssh
  const privateKey = ssh?.privateKey === undefined ? undefined : Redacted.make(yield* readTextFile(ssh.privateKey))
  const sshTarget = (node: string): Effect.Effect<SshTarget, SshNotConfigured> => {
    const entry = ssh?.nodes[node]
    if (ssh === undefined || entry === undefined || entry.hostKey === undefined || privateKey === undefined) {
      return Effect.fail(new SshNotConfigured({ node }))
    }
    return Effect.succeed({
      node,
      host: entry.host,
      port: entry.port,
      user: ssh.user,
      privateKey,
      hostKey: entry.hostKey
    })
  }
  return { name: config.name, client, cache, sshTarget } satisfies ClusterRuntime
}) as (
  config: ProxmoxClusterConfig,
  timing: ClusterTiming,
  events: Events["Service"]
) => Effect.Effect<ClusterRuntime, SecretUnreadable, Scope.Scope>
