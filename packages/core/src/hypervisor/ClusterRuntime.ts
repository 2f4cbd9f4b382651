import { SshNotConfigured } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { ProxmoxClusterConfig } from "../config/ConfigSections.js"
import { readSecret, SecretUnreadable } from "../config/ReadSecret.js"
import { readTextFile } from "../config/ReadTextFile.js"
import type { Events } from "../events/Events.js"
import { lazyModule } from "../util/LazyModule.js"
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

// Loaded only for a cluster that names a private key, as NodeShellLive loads it only to connect.
const ssh2Module = lazyModule(() => import("ssh2"))

// Why ssh2 cannot use the key, in words; ssh2's own message up to its first `:` (after it, some messages quote
// header fields of the file; the key itself never goes into an error).
const unusableKey = (error: Error) =>
  /passphrase/i.test(error.message)
    ? "the key is encrypted with a passphrase; Gatehouse needs one without (ssh-keygen -p -N '' -f <file> on a copy)"
    : `not a private key ssh2 can read (${error.message.split(":")[0]})`

/**
 * Reads and parses the SSH private key at start: an encrypted key or a `.pub` file named by mistake fails the start
 * with a message naming the setting and the file, instead of every later command failing inside ssh2.
 */
const readPrivateKey = Effect.fnUntraced(function* (key: string, path: string) {
  const text = yield* readFileFor(key, path)
  const { default: ssh2 } = yield* ssh2Module
  const parsed = yield* Effect.try({
    try: () => ssh2.utils.parseKey(text),
    catch: () => new SecretUnreadable({ key, path, reason: "not a private key ssh2 can read" })
  })
  const reason =
    parsed instanceof Error
      ? unusableKey(parsed)
      : !parsed.isPrivateKey()
        ? "a public key, not a private key (the .pub file instead of the key itself?)"
        : undefined
  if (reason !== undefined) return yield* new SecretUnreadable({ key, path, reason })
  return Redacted.make(text)
})

/** Timing shared by every cluster. */
export interface ClusterTiming {
  readonly requestTimeoutMs: number
  readonly addressRefreshMs: number
}

/**
 * Starts one cluster: reads its secret, CA file and SSH private key (an unreadable file, or a key ssh2 cannot use,
 * fails the start with a message naming the setting and the path), opens the API client and starts the cache's
 * poller. Everything stops with the scope.
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
  const ssh = config.ssh
  // Read before anything starts: a bad key stops the start, not the first journal request.
  const privateKey =
    ssh?.privateKey === undefined ? undefined : yield* readPrivateKey(`${at} ssh.private_key`, ssh.privateKey)
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
