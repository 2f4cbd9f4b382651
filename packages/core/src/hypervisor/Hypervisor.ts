import type {
  ClusterCacheState,
  Guest,
  GuestNotFound,
  GuestNotRunning,
  HypervisorNode,
  HypervisorNodeNotFound,
  HypervisorNotConfigured,
  InvalidArgument,
  LxcAction,
  LxcActionResult,
  NodeStats,
  ProxmoxAccessDenied,
  ProxmoxCertificateMismatch,
  ProxmoxCertificateUntrusted,
  ProxmoxFailed,
  ProxmoxTaskFailed,
  ProxmoxTaskIneffective,
  ProxmoxTimedOut,
  ProxmoxUnreachable,
  SshFailed,
  SshHostKeyMismatch,
  SshNotConfigured,
  SshTimedOut,
  SshUnreachable
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { GuestLocation } from "./GuestLocator.js"

/** A Proxmox API call failed (each names its cluster). */
export type ProxmoxError =
  | ProxmoxUnreachable
  | ProxmoxFailed
  | ProxmoxAccessDenied
  | ProxmoxCertificateMismatch
  | ProxmoxCertificateUntrusted
  | ProxmoxTimedOut

/**
 * Finding a node failed: not configured, not found, or the cluster that might have it never answered (its
 * Proxmox error, e.g. a wrong token, rather than a misleading 404).
 */
export type NodeLookupError = HypervisorNotConfigured | HypervisorNodeNotFound | ProxmoxError

/** Finding a node or guest failed. */
export type LookupError = NodeLookupError | GuestNotFound

/** A command on a node failed. */
export type CommandError = SshNotConfigured | SshUnreachable | SshHostKeyMismatch | SshFailed

/** Which journal to follow: the node's (`vmid` 0 or absent) or a container's, optionally filtered by units. */
export interface JournalRequest {
  readonly node: string
  readonly vmid?: number | undefined
  readonly services?: ReadonlyArray<string> | undefined
  /** Initial lines, 1–1000 (default 100). */
  readonly limit?: number | undefined
}

/** Which files to follow, on the node or in a container. */
export interface TailRequest {
  readonly node: string
  readonly vmid?: number | undefined
  /** Absolute paths, at least one. */
  readonly files: ReadonlyArray<string>
  readonly limit?: number | undefined
}

/**
 * Proxmox VE nodes and LXC containers (SPEC §5): a resource cache refreshed from `/cluster/resources` per cluster
 * (one poller shared by everything), node and guest stats, journals and log files followed over SSH, and LXC
 * power actions that wait for Proxmox's task. Streams are shared per upstream: any number of watchers of one
 * node cost one poll. The real layer is `HypervisorLive.layer`.
 */
export class Hypervisor extends Context.Service<
  Hypervisor,
  {
    /** Every node of every cluster, from the cache; a Proxmox error when no cluster has answered yet. */
    readonly nodes: Effect.Effect<ReadonlyArray<HypervisorNode>, HypervisorNotConfigured | ProxmoxError>
    /** Every guest of every cluster, from the cache; a Proxmox error when no cluster has answered yet. */
    readonly guests: Effect.Effect<ReadonlyArray<Guest>, HypervisorNotConfigured | ProxmoxError>
    /** Whether each cluster's cache is fresh or stale (and why), in the order of the config. */
    readonly cacheState: Effect.Effect<ReadonlyArray<ClusterCacheState>, HypervisorNotConfigured>
    /** A node's stats, read from Proxmox now. */
    readonly nodeStats: (node: string) => Effect.Effect<NodeStats, NodeLookupError | ProxmoxError>
    /** A node's stats once per second, shared by every watcher of the node; fails when the node goes away. */
    readonly watchNodeStats: (node: string) => Stream.Stream<NodeStats, NodeLookupError | ProxmoxError>
    /** A guest's stats line `STATUS|CPU%|MEM USAGE/LIMIT|MEM%|NET I/O|BLOCK I/O` from the cache. */
    readonly guestStatsLine: (node: string, vmid: number) => Effect.Effect<string, LookupError>
    /** The guest's stats line once per second, from the cache (no Proxmox call per watcher). */
    readonly watchGuestStatsLine: (node: string, vmid: number) => Stream.Stream<string, LookupError>
    /**
     * Checks a journal request (services are safe arguments — before anything else —, node and guest exist, the
     * guest runs, SSH is configured, the node answers with its pinned host key) and gives the stream of lines: the
     * initial `limit` lines, then new ones. A container's is checked for journald first, a check bounded in time:
     * past the bound, {@link SshTimedOut}.
     */
    readonly journal: (
      request: JournalRequest
    ) => Effect.Effect<
      Stream.Stream<string, CommandError>,
      InvalidArgument | LookupError | GuestNotRunning | CommandError | SshTimedOut
    >
    /**
     * As {@link journal}, for `tail -F` of absolute file paths below `hypervisor.tail_paths` (checked first, with
     * the other input); a file named twice, however spelled, is followed once.
     */
    readonly tail: (
      request: TailRequest
    ) => Effect.Effect<
      Stream.Stream<string, CommandError>,
      InvalidArgument | LookupError | GuestNotRunning | CommandError
    >
    /**
     * Starts, gracefully stops (shutdown, then stop after the timeout) or restarts a container, waits for the task
     * and confirms the final status. Already in the target state: succeeds without a task. `by` is the caller.
     */
    readonly lxc: (
      node: string,
      vmid: number,
      action: LxcAction,
      by: string
    ) => Effect.Effect<
      LxcActionResult,
      InvalidArgument | LookupError | ProxmoxError | ProxmoxTaskFailed | ProxmoxTaskIneffective
    >
    /** Reverse lookup (SPEC §2): the guest or node whose address, hostname or name is `host`. */
    readonly locate: (host: string) => Effect.Effect<GuestLocation | undefined>
  }
>()("@gatehouse-edge/core/Hypervisor") {}
