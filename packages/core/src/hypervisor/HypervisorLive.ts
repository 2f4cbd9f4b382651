import {
  GuestNotFound,
  GuestNotRunning,
  HypervisorEvents,
  HypervisorNodeNotFound,
  HypervisorNotConfigured,
  InvalidArgument,
  type LxcAction,
  lxcActionTimeoutMs,
  type Route,
  SshTimedOut
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { HypervisorConfig } from "../config/ConfigSections.js"
import { Events } from "../events/Events.js"
import { type ClusterRuntime, startCluster } from "./ClusterRuntime.js"
import { notAContainer } from "./GuestKind.js"
import { GuestLocator } from "./GuestLocator.js"
import { guestStatsLine } from "./GuestStatsLine.js"
import { Hypervisor, type JournalRequest, type TailRequest } from "./Hypervisor.js"
import { type LxcControlOptions, runLxcAction } from "./LxcControl.js"
import {
  commandInputProblems,
  defaultLineLimit,
  fallbackLogFile,
  hasJournaldArgv,
  inGuest,
  journalArgv,
  normalizeFile,
  tailArgv
} from "./NodeCommands.js"
import { NodeShell } from "./NodeShell.js"
import { nodeStatsOf } from "./NodeStatsOf.js"
import { watchPermissions } from "./PermissionWatch.js"
import type { PveError } from "./PveClient.js"
import { PveNodeStatus } from "./PveSchemas.js"
import type { ClusterSnapshot } from "./ResourceCache.js"
import { reverseLookup } from "./ReverseLookup.js"
import { makeSharedFollows } from "./SharedFollows.js"
import { makeSharedPolls } from "./SharedPolls.js"
import { isTransientFailure } from "./TransientFailure.js"

/** Timing of the hypervisor service; every field has the SPEC's default. */
export interface HypervisorOptions {
  /** Per Proxmox API request. Default 10 s. */
  readonly requestTimeoutMs?: number
  /** Stats streams emit this often. Default 1 s. */
  readonly statsIntervalMs?: number
  /** A running container's addresses are looked up again after this long. Default 30 s. */
  readonly addressRefreshMs?: number
  /** How long the check whether a container runs journald may take before the journal request fails. Default 10 s. */
  readonly probeTimeoutMs?: number
  readonly lxc?: Partial<LxcControlOptions>
}

const defaultLxc: LxcControlOptions = {
  timeoutMs: lxcActionTimeoutMs,
  shutdownTimeoutS: 60,
  pollIntervalMs: 500,
  settleMs: 5000
}

const lxcEvent = {
  start: HypervisorEvents.lxcStart,
  stop: HypervisorEvents.lxcStop,
  restart: HypervisorEvents.lxcRestart
} as const

/** Builds the service over the configured clusters (none: every call answers `HypervisorNotConfigured`). */
export const make = Effect.fn("HypervisorLive.make")(function* (
  config: HypervisorConfig,
  options: HypervisorOptions = {}
) {
  const events = yield* Events
  const shell = yield* NodeShell
  const scope = yield* Effect.scope
  const timing = {
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    addressRefreshMs: options.addressRefreshMs ?? 30_000
  }
  const statsIntervalMs = options.statsIntervalMs ?? 1000
  const probeTimeoutMs = options.probeTimeoutMs ?? 10_000
  const lxcOptions = { ...defaultLxc, ...options.lxc }
  const clusters = yield* Effect.forEach(config.clusters, (cluster) => startCluster(cluster, timing, events))
  yield* watchPermissions(clusters, events)

  const configured = clusters.length === 0 ? Effect.fail(new HypervisorNotConfigured()) : Effect.void

  const snapshots = Effect.forEach(clusters, (cluster) => cluster.cache.snapshot)

  // What the lists show. When no cluster has ever answered, an empty list would hide why (a wrong token, an
  // unreachable API): fail with the first cluster's error instead. One working cluster is enough to answer.
  const listed = Effect.andThen(
    configured,
    Effect.flatMap(snapshots, (all) => {
      const failure = all.every((s) => !s.loaded) ? all[0]?.failure : undefined
      return failure === undefined ? Effect.succeed(all) : Effect.fail(failure)
    })
  )

  // A name not found may be new since the last refresh: look again after a refresh (at most one a second).
  const findIn = <A>(pick: (clusters: ReadonlyArray<ClusterRuntime>) => Effect.Effect<Option.Option<A>>) =>
    Effect.gen(function* () {
      yield* configured
      const first = yield* pick(clusters)
      if (Option.isSome(first)) return first
      yield* Effect.forEach(clusters, (cluster) => cluster.cache.freshen, { concurrency: "unbounded", discard: true })
      return yield* pick(clusters)
    })

  const findNode = (node: string) =>
    findIn((all) =>
      Effect.map(
        Effect.forEach(all, (cluster) =>
          Effect.map(cluster.cache.snapshot, (s) => (s.nodes.some((n) => n.node === node) ? [cluster] : []))
        ),
        (found) => Option.fromNullishOr(found.flat()[0])
      )
    ).pipe(Effect.flatMap((found) => (Option.isSome(found) ? Effect.succeed(found.value) : notFound(node))))

  // A node no cluster lists is unknown, unless a cluster never answered: then the node may well be there, and
  // that cluster's failure (wrong token, unreachable) is the true answer, not a 404.
  const notFound = (node: string): Effect.Effect<never, HypervisorNodeNotFound | PveError> =>
    Effect.flatMap(snapshots, (all): Effect.Effect<never, HypervisorNodeNotFound | PveError> => {
      const blind = all.find((s) => !s.loaded && s.failure !== undefined)
      return blind?.failure !== undefined
        ? Effect.fail(blind.failure)
        : Effect.fail(new HypervisorNodeNotFound({ node }))
    })

  const findGuest = (node: string, vmid: number) =>
    Effect.gen(function* () {
      const cluster = yield* findNode(node)
      const lookup = Effect.map(cluster.cache.snapshot, (s) =>
        Option.fromNullishOr(s.guests.find((g) => g.node === node && g.vmid === vmid))
      )
      const first = yield* lookup
      // A guest created since the last refresh: look once more before answering 404.
      const guest = Option.isSome(first) ? first : yield* Effect.andThen(cluster.cache.freshen, lookup)
      if (Option.isNone(guest)) return yield* new GuestNotFound({ node, vmid })
      return { cluster, guest: guest.value }
    })

  const nodeStats = Effect.fn("Hypervisor.nodeStats")(function* (node: string) {
    const cluster = yield* findNode(node)
    const status = yield* cluster.client.get(`/nodes/${encodeURIComponent(node)}/status`, PveNodeStatus)
    return nodeStatsOf(node, status, DateTime.formatIso(yield* DateTime.now))
  })
  const guestLine = Effect.fn("Hypervisor.guestStatsLine")(function* (node: string, vmid: number) {
    return guestStatsLine((yield* findGuest(node, vmid)).guest)
  })

  // One failed poll (a 5xx, a node briefly cut off, a timeout) skips a frame instead of closing every watcher's stream.
  // A guest's line comes from the cache, which keeps its last good data through failed refreshes: what can fail
  // there (the guest or its node gone) is not transient, and ends the stream at once as before.
  const polling = { intervalMs: statsIntervalMs, isTransient: isTransientFailure }
  const nodePolls = yield* makeSharedPolls(nodeStats, polling)
  const follow = yield* makeSharedFollows(shell)
  const guestPolls = yield* makeSharedPolls((key) => {
    const [node, vmid] = key.split("\u0000") as [string, string]
    return guestLine(node, Number(vmid))
  }, polling)

  // Checks done before any connection: input, node, guest (a container) and its status, SSH for the node.
  const prepareCommand = Effect.fn("Hypervisor.prepareCommand")(function* (
    request: JournalRequest | TailRequest,
    input: Parameters<typeof commandInputProblems>[0]
  ) {
    const problem = commandInputProblems(input)
    if (problem !== undefined) return yield* problem
    const vmid = request.vmid ?? 0
    const cluster = yield* findNode(request.node)
    if (vmid !== 0) {
      const { guest } = yield* findGuest(request.node, vmid)
      const notContainer = notAContainer(guest)
      if (notContainer !== undefined) return yield* notContainer
      if (guest.status !== "running") {
        return yield* new GuestNotRunning({ node: request.node, vmid, status: guest.status })
      }
    }
    const target = yield* cluster.sshTarget(request.node)
    // Connect now: an unreachable node (503) or a wrong host key (502) is answered before a stream is promised.
    yield* shell.connect(target)
    return { target, vmid, limit: request.limit ?? defaultLineLimit }
  })

  const journal = Effect.fn("Hypervisor.journal")(function* (request: JournalRequest) {
    // A unit named twice filters the same: one `-u` each.
    const services = [...new Set(request.services ?? [])]
    const { target, vmid, limit } = yield* prepareCommand(request, { services, limit: request.limit })
    if (vmid === 0) return follow(target, journalArgv(services, limit), limit)
    // A container without journald (Alpine, busybox, ...) logs to a file: follow that instead. A container that
    // hangs (`pct exec` waiting on a frozen container, a stuck mount) must not hold the request forever: the check
    // is bounded, and past the bound the request fails as an upstream that did not answer in time (504), naming
    // what did not answer. Not a 502: nothing answered with an error.
    const probe = yield* shell.run(target, inGuest(vmid, hasJournaldArgv)).pipe(
      Effect.timeoutOrElse({
        duration: probeTimeoutMs,
        orElse: () =>
          Effect.fail(
            new SshTimedOut({
              node: request.node,
              operation: `checking for journald in container ${vmid} (${hasJournaldArgv.join(" ")})`,
              timeout_ms: probeTimeoutMs
            })
          )
      })
    )
    return follow(
      target,
      inGuest(vmid, probe.exitCode === 0 ? journalArgv(services, limit) : tailArgv([fallbackLogFile], limit)),
      limit
    )
  })

  const tail = Effect.fn("Hypervisor.tail")(function* (request: TailRequest) {
    if (request.files.length === 0) {
      return yield* new InvalidArgument({
        message: "file is required: at least one absolute path",
        issues: [{ path: ["file"], message: "at least one file is required" }]
      })
    }
    const { target, vmid, limit } = yield* prepareCommand(request, {
      files: request.files,
      limit: request.limit,
      tailPaths: config.tailPaths
    })
    // A file named twice would be followed (and replayed) twice, and `/x`, `/./x` and `//x` name the same file.
    const files = [...new Set(request.files.map(normalizeFile))]
    // `tail -n <limit>` prints up to `limit` lines per file.
    return follow(target, inGuest(vmid, tailArgv(files, limit)), limit * files.length)
  })

  const lxc = Effect.fn("Hypervisor.lxc")(function* (node: string, vmid: number, action: LxcAction, by: string) {
    const { cluster, guest } = yield* findGuest(node, vmid)
    const notContainer = notAContainer(guest)
    if (notContainer !== undefined) return yield* notContainer
    // Once asked for, an action runs to its end in the service's scope, and its event is recorded: a client that
    // goes away (or a proxy's timeout) does not stop the wait for Proxmox's task halfway, unrecorded.
    const fiber = yield* Effect.forkIn(runLxc(cluster, node, vmid, action, by), scope)
    return yield* Fiber.join(fiber)
  })

  const runLxc = (cluster: ClusterRuntime, node: string, vmid: number, action: LxcAction, by: string) =>
    Effect.gen(function* () {
      const { result, warnings } = yield* runLxcAction(cluster.client, node, vmid, action, lxcOptions).pipe(
        Effect.tapError((error) =>
          events.publish(
            HypervisorEvents.lxcFailed({ cluster: cluster.name, node, vmid, action, error: error.message, by })
          )
        ),
        // The status Proxmox confirmed is the cache's at once: its polls may show the old one for ~10 s (RRD), and
        // journal and tail of a container just started would be refused meanwhile.
        Effect.tap(({ result }) => cluster.cache.confirmStatus(vmid, result.status)),
        // Whatever happened, the rest of the cache (uptimes, addresses, a failed action's state) is refreshed now.
        Effect.ensuring(Effect.ignore(cluster.cache.refresh))
      )
      yield* events.publish(
        lxcEvent[action]({
          cluster: cluster.name,
          node,
          vmid,
          status: result.status,
          by,
          ...(result.task === undefined ? {} : { task: result.task }),
          // What the answer's message says of them, kept in the event history too.
          ...(warnings === 0 ? {} : { warnings })
        })
      )
      return result
    })

  const locate = Effect.fn("Hypervisor.locate")(function* (host: string) {
    return reverseLookup(yield* snapshots, host)
  })

  const statusOf = (snapshot: ClusterSnapshot, node: string, vmid: number) =>
    vmid === 0
      ? snapshot.nodes.find((n) => n.node === node)?.status
      : snapshot.guests.find((g) => g.node === node && g.vmid === vmid)?.status

  // Loopback is this machine, never a guest (a guest named "localhost" must not capture every local route).
  const isLoopback = (host: string) => /^(localhost|127(\.\d+){3}|::1|\[::1\])$/i.test(host)

  const locateRoute = Effect.fn("GuestLocator.locate")(function* (route: Route) {
    const pinned = route.proxmox
    if (pinned !== undefined) {
      const vmid = pinned.vmid ?? 0
      for (const snapshot of yield* snapshots) {
        const status = statusOf(snapshot, pinned.node, vmid)
        if (status !== undefined) return { cluster: snapshot.cluster, node: pinned.node, vmid, status }
      }
      return undefined
    }
    if (!isLoopback(route.host)) {
      const byHost = yield* locate(route.host)
      if (byHost !== undefined) return byHost
    }
    return yield* locate(route.alias)
  })

  // Without clusters there is nothing to find: listings and health then skip the lookup.
  const locator = clusters.length === 0 ? undefined : { locate: locateRoute }

  const hypervisor = Hypervisor.of({
    nodes: Effect.map(listed, (all) => all.flatMap((s) => s.nodes)),
    guests: Effect.map(listed, (all) => all.flatMap((s) => s.guests)),
    cacheState: Effect.andThen(
      configured,
      Effect.map(snapshots, (all) =>
        all.map((s) => ({
          cluster: s.cluster,
          stale: s.stale || !s.loaded,
          ...(s.refreshedAt === undefined ? {} : { refreshed_at: new Date(s.refreshedAt).toISOString() }),
          ...(s.failure === undefined ? {} : { error: s.failure.message })
        }))
      )
    ),
    nodeStats,
    watchNodeStats: (node) => Stream.unwrap(Effect.as(findNode(node), nodePolls(node))),
    guestStatsLine: guestLine,
    watchGuestStatsLine: (node, vmid) =>
      Stream.unwrap(Effect.as(findGuest(node, vmid), guestPolls(`${node}\u0000${vmid}`))),
    journal,
    tail,
    lxc,
    locate
  })
  return { hypervisor, locator }
})

/**
 * The real hypervisor service, and the {@link GuestLocator} over its cache that route listings and health use:
 * needs the event bus and the SSH shell (`NodeShellLive.layer`).
 */
export const layer = (config: HypervisorConfig, options: HypervisorOptions = {}) =>
  Layer.effectContext(
    Effect.map(make(config, options), ({ hypervisor, locator }) =>
      Context.make(Hypervisor, hypervisor).pipe(Context.add(GuestLocator, locator))
    )
  )
