import type { Guest, HypervisorNode } from "@gatehouse-edge/contract/domain"
import { HypervisorEvents } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type { Events } from "../events/Events.js"
import type { PveClient, PveError } from "./PveClient.js"
import { type PveClusterResource, PveClusterResources, PveInterfaces } from "./PveSchemas.js"

/** What the cache knows of one cluster. */
export interface ClusterSnapshot {
  readonly cluster: string
  readonly nodes: ReadonlyArray<HypervisorNode>
  readonly guests: ReadonlyArray<Guest>
  /** At least one refresh succeeded. */
  readonly loaded: boolean
  /** The last refresh failed: the data is the last good one. */
  readonly stale: boolean
  readonly refreshedAt: number | undefined
  /** Why the last refresh failed (`undefined` after a good one). */
  readonly failure: PveError | undefined
}

/** How a cluster's cache refreshes. */
export interface ResourceCacheOptions {
  readonly refreshIntervalMs: number
  /** Interface lookups in flight at once. */
  readonly lookupConcurrency: number
  /** A running container's addresses are looked up again after this long (also on every status change). */
  readonly addressRefreshMs: number
}

/** A cluster's cache: the latest snapshot, and a refresh now (also what the poller runs). */
export interface ResourceCache {
  /** The latest snapshot, once the first refresh has answered (or failed): never the empty one of the start. */
  readonly snapshot: Effect.Effect<ClusterSnapshot>
  readonly refresh: Effect.Effect<void>
  /**
   * A refresh now, unless one started less than a second ago (then it waits for that one): what a lookup that
   * missed asks for, so a client asking for unknown names cannot turn each request into a Proxmox call.
   */
  readonly freshen: Effect.Effect<void>
  /**
   * Records a container's status as Proxmox confirmed it (`status/current` after a power action). The polls read
   * `/cluster/resources`, whose guest values come from the RRD cache (up to ~10 s old): until a poll reports this
   * status, or {@link confirmedHoldMs} has passed, the snapshot shows the confirmed status instead of the poll's.
   */
  readonly confirmStatus: (vmid: number, status: string) => Effect.Effect<void>
  /**
   * Completes when Proxmox answers a refresh sent after this started: what waits for an unreachable cluster to
   * answer again, at the pace of the polls, without asking it anything itself.
   */
  readonly nextAnswer: Effect.Effect<void>
}

/**
 * How long a confirmed status outweighs polls that disagree. pvestatd writes the RRD cache every 10 s, so a poll
 * sent this long after the confirmation that still disagrees reports a newer change (someone else's action), not lag.
 */
export const confirmedHoldMs = 30_000

interface Confirmed {
  readonly status: string
  readonly at: number
}

interface Addresses {
  readonly ips: ReadonlyArray<string>
  readonly status: string
  readonly fetchedAt: number
}

const int = (value: number | undefined): number => Math.max(0, Math.round(value ?? 0))

const nodeOf = (cluster: string, r: PveClusterResource): HypervisorNode => ({
  cluster,
  node: r.node ?? r.id.replace(/^node\//, ""),
  status: r.status ?? "unknown",
  ...(r.maxcpu === undefined ? {} : { cpu_count: int(r.maxcpu) }),
  ...(r.cpu === undefined ? {} : { cpu_usage_pct: Math.round(r.cpu * 10000) / 100 }),
  ...(r.mem === undefined ? {} : { mem_used: int(r.mem) }),
  ...(r.maxmem === undefined ? {} : { mem_total: int(r.maxmem) }),
  ...(r.uptime === undefined ? {} : { uptime_s: int(r.uptime) })
})

const guestOf = (cluster: string, r: PveClusterResource, ips: ReadonlyArray<string>): Guest => ({
  cluster,
  node: r.node ?? "",
  vmid: int(r.vmid),
  type: r.type === "qemu" ? "qemu" : "lxc",
  name: r.name ?? `CT${int(r.vmid)}`,
  status: r.status ?? "unknown",
  // Rounded as the node's is: 0.017 * 100 is 1.7000000000000002.
  cpu_usage_pct: Math.round((r.cpu ?? 0) * 10000) / 100,
  mem_used: int(r.mem),
  mem_total: int(r.maxmem),
  net_in: int(r.netin),
  net_out: int(r.netout),
  disk_read: int(r.diskread),
  disk_write: int(r.diskwrite),
  uptime_s: int(r.uptime),
  ips,
  tags: (r.tags ?? "").split(/[;,\s]+/).filter((tag) => tag !== "")
})

/** The addresses of a container's interfaces without prefix length, loopback left out. */
const addressesOf = (interfaces: PveInterfaces): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const entry of interfaces ?? []) {
    if (entry.name === "lo") continue
    const listed = entry["ip-addresses"]?.map((a) => a["ip-address"]) ?? [entry.inet, entry.inet6]
    for (const address of listed) if (address !== undefined) found.add(address.replace(/\/\d+$/, ""))
  }
  return [...found]
}

const isGuest = (r: PveClusterResource): boolean => (r.type === "lxc" || r.type === "qemu") && r.vmid !== undefined

/**
 * The resource cache of one cluster (SPEC §5.1): `/cluster/resources` every `refreshIntervalMs` by one poller
 * (started here, stopped with the scope); LXC addresses from `/interfaces` with bounded concurrency, only when a
 * container's status changed or its addresses are older than `addressRefreshMs`. A refresh waits for its address
 * lookups at most one refresh interval: one that takes longer (a hung container makes PVE's `/interfaces` wait for
 * the request timeout) goes on by itself and its addresses land in the snapshot when it answers, so it holds neither
 * the poller (the statuses stay as current as `refreshedAt` says) nor the first snapshot. A failed refresh keeps the
 * last good data, marks it stale and emits `hypervisor/cache_stale` with a warning once; the next good refresh emits
 * `hypervisor/cache_recovered` with an info line.
 */
export const makeResourceCache = Effect.fn("ResourceCache.make")(function* (
  client: PveClient,
  options: ResourceCacheOptions,
  events: Events["Service"]
) {
  const cluster = client.cluster
  const state = yield* Ref.make<ClusterSnapshot>({
    cluster,
    nodes: [],
    guests: [],
    loaded: false,
    stale: false,
    refreshedAt: undefined,
    failure: undefined
  })
  const addresses = yield* Ref.make(new Map<number, Addresses>())
  const scope = yield* Effect.scope
  const lookupPermits = yield* Semaphore.make(options.lookupConcurrency)
  // Containers whose lookup is in flight: a refresh does not start a second one (hung lookups would pile up).
  const looking = new Set<number>()
  // Each guest's status in the latest good refresh: a lookup that answers late records its addresses only for a
  // guest still listed, under the status it has now (so a container stopped meanwhile is looked up on its restart).
  let listed = new Map<number, string>()
  // Statuses confirmed by Proxmox after an action, by vmid, until the polls report them.
  const confirmed = new Map<number, Confirmed>()
  // Requests of `/cluster/resources` sent so far, and the number of the one whose answer the snapshot holds.
  let sent = 0
  let held = 0
  // The number of the newest request that Proxmox answered: what `nextAnswer` waits on.
  const answered = yield* SubscriptionRef.make(0)

  // Addresses that answered: kept for later refreshes and put into the snapshot at once (its guest may have been
  // published without them, by this refresh or the next).
  const record = (vmid: number, ips: ReadonlyArray<string>, fetchedAt: number) =>
    Effect.gen(function* () {
      const status = listed.get(vmid)
      if (status === undefined) return
      yield* Ref.update(addresses, (map) => new Map(map).set(vmid, { ips, status, fetchedAt }))
      yield* Ref.update(state, (s) => ({ ...s, guests: s.guests.map((g) => (g.vmid === vmid ? { ...g, ips } : g)) }))
    })

  // A failed lookup keeps the addresses known before; the next refresh tries again.
  const lookup = (r: PveClusterResource, now: number) =>
    client.get(`/nodes/${encodeURIComponent(r.node ?? "")}/lxc/${int(r.vmid)}/interfaces`, PveInterfaces).pipe(
      lookupPermits.withPermits(1),
      Effect.flatMap((interfaces) => record(int(r.vmid), addressesOf(interfaces), now)),
      Effect.ignore,
      Effect.ensuring(Effect.sync(() => looking.delete(int(r.vmid))))
    )

  const lookupAddresses = (resources: ReadonlyArray<PveClusterResource>, now: number) =>
    Effect.gen(function* () {
      listed = new Map(resources.filter(isGuest).map((r) => [int(r.vmid), r.status ?? "unknown"]))
      const known = yield* Ref.get(addresses)
      const due = resources.filter((r) => {
        if (r.type !== "lxc" || r.status !== "running" || looking.has(int(r.vmid))) return false
        const previous = known.get(int(r.vmid))
        return (
          previous === undefined || previous.status !== r.status || now - previous.fetchedAt >= options.addressRefreshMs
        )
      })
      for (const r of due) looking.add(int(r.vmid))
      // In the cache's scope, not the refresh's: a lookup outlives the wait below and ends only with the cache.
      const fibers = yield* Effect.forEach(due, (r) => Effect.forkIn(lookup(r, now), scope))
      yield* Effect.timeoutOption(Fiber.awaitAll(fibers), options.refreshIntervalMs)
      // A stopped container keeps its last addresses (a route still maps to it) but is looked up again on start; a
      // container no longer listed (deleted, moved to another cluster) is forgotten.
      yield* Ref.update(addresses, (map) => {
        const next = new Map(map)
        const listed = new Set<number>()
        for (const r of resources) {
          if (!isGuest(r)) continue
          listed.add(int(r.vmid))
          const entry = next.get(int(r.vmid))
          if (entry !== undefined && r.status !== "running") {
            next.set(int(r.vmid), { ...entry, status: r.status ?? "unknown" })
          }
        }
        for (const vmid of next.keys()) if (!listed.has(vmid)) next.delete(vmid)
        return next
      })
    })

  const publish = (resources: ReadonlyArray<PveClusterResource>, now: number) =>
    Effect.gen(function* () {
      const known = yield* Ref.get(addresses)
      const nodes = resources.filter((r) => r.type === "node").map((r) => nodeOf(cluster, r))
      const guests = resources
        .filter(isGuest)
        .map((r) => guestOf(cluster, r, known.get(int(r.vmid))?.ips ?? []))
        .sort((a, b) => a.vmid - b.vmid)
      const previous = yield* Ref.getAndSet(state, {
        cluster,
        nodes,
        guests,
        loaded: true,
        stale: false,
        refreshedAt: now,
        failure: undefined
      })
      if (previous.stale) {
        yield* Effect.logInfo(`Proxmox VE cluster "${cluster}" answers again; its resources are current`)
        yield* Effect.asVoid(events.publish(HypervisorEvents.cacheRecovered({ cluster })))
      }
    })

  // The poll's resources with the statuses confirmed since put in; a confirmed status the poll reports, or one
  // older than the hold when the poll was sent, is dropped (the poll has caught up, or knows of a newer change).
  const withConfirmed = (resources: ReadonlyArray<PveClusterResource>, sentAt: number) => {
    const polled = new Map(resources.filter(isGuest).map((r) => [int(r.vmid), r.status]))
    for (const [vmid, entry] of confirmed) {
      const status = polled.get(vmid)
      if (status === undefined || status === entry.status || sentAt - entry.at >= confirmedHoldMs) {
        confirmed.delete(vmid)
      }
    }
    return resources.map((r) => {
      const entry = isGuest(r) ? confirmed.get(int(r.vmid)) : undefined
      return entry === undefined ? r : { ...r, status: entry.status }
    })
  }

  const confirmStatus = (vmid: number, status: string) =>
    Effect.gen(function* () {
      confirmed.set(vmid, { status, at: yield* Clock.currentTimeMillis })
      yield* Ref.update(state, (s) => ({
        ...s,
        guests: s.guests.map((g) => (g.vmid === vmid ? { ...g, status } : g))
      }))
    })

  const refresh = Effect.gen(function* () {
    const request = ++sent
    const sentAt = yield* Clock.currentTimeMillis
    const result = yield* Effect.result(client.get("/cluster/resources", PveClusterResources))
    // The poller, `freshen` and the refresh after an action run at once, and their answers can arrive in any order:
    // one to a request sent before the one the snapshot holds is older than what it holds.
    if (request < held) return
    held = request
    if (result._tag === "Failure") {
      const failure = result.failure
      const previous = yield* Ref.getAndUpdate(state, (s) => ({ ...s, stale: true, failure }))
      // Once per outage, as the event: the poller goes on failing every interval meanwhile.
      if (!previous.stale) {
        yield* Effect.logWarning(
          `Proxmox VE cluster "${cluster}": refreshing its resources failed, the lists show the last known ones (${failure.message})`
        )
        yield* Effect.asVoid(events.publish(HypervisorEvents.cacheStale({ cluster, error: failure.message })))
      }
      return
    }
    yield* SubscriptionRef.set(answered, request)
    const now = yield* Clock.currentTimeMillis
    const resources = withConfirmed(result.success, sentAt)
    // Publish the statuses at once; addresses follow as their lookups answer.
    yield* publish(resources, now)
    yield* lookupAddresses(resources, now)
  }).pipe(Effect.withSpan("ResourceCache.refresh", { attributes: { cluster } }))

  // Serialized, so concurrent misses share one refresh instead of each making its own.
  const freshening = yield* Semaphore.make(1)
  let lastFreshenAt = Number.NEGATIVE_INFINITY
  const freshen = freshening.withPermits(1)(
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (now - lastFreshenAt < 1000) return
      lastFreshenAt = now
      yield* refresh
    })
  )

  const nextAnswer = Effect.suspend(() => {
    const after = sent
    return SubscriptionRef.changes(answered).pipe(
      Stream.filter((request) => request > after),
      Stream.take(1),
      Stream.runDrain
    )
  })

  const firstRefresh = yield* Deferred.make<void>()
  yield* Effect.forkScoped(
    Effect.andThen(
      Effect.ensuring(refresh, Deferred.succeed(firstRefresh, undefined)),
      Effect.repeat(Effect.delay(refresh, options.refreshIntervalMs), Schedule.forever)
    )
  )
  return {
    snapshot: Effect.andThen(Deferred.await(firstRefresh), Ref.get(state)),
    refresh,
    freshen,
    confirmStatus,
    nextAnswer
  } satisfies ResourceCache
}) as (
  client: PveClient,
  options: ResourceCacheOptions,
  events: Events["Service"]
) => Effect.Effect<ResourceCache, never, Scope.Scope>
