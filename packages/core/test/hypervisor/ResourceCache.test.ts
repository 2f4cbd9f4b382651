import { assert, describe, it } from "@effect/vitest"
import { ProxmoxTimedOut, ProxmoxUnreachable } from "@gatehouse-edge/contract/domain"
import { Effect, Logger } from "effect"
import { TestClock } from "effect/testing"
import type { Events } from "../../src/events/Events.js"
import type { PveClient } from "../../src/hypervisor/PveClient.js"
import type { PveClusterResource } from "../../src/hypervisor/PveSchemas.js"
import { type ClusterSnapshot, confirmedHoldMs, makeResourceCache } from "../../src/hypervisor/ResourceCache.js"

// The real client gives up on a request after its timeout (10 s by default) with ProxmoxTimedOut: that is what a
// hung `/interfaces` looks like to the cache.
const requestTimeoutMs = 10_000

const container = (vmid: number, status = "running"): PveClusterResource =>
  ({ id: `lxc/${vmid}`, type: "lxc", vmid, node: "pve1", name: `ct${vmid}`, status }) as PveClusterResource

/**
 * A cluster whose `/cluster/resources` lists `resources` (the test changes them) as they were when the request was
 * sent, answering after the next of `resourcesMs` (at once when none is left), and whose `/interfaces` of a
 * container answers after `lookupMs(vmid)` with one address, 10.0.0.<vmid> — or, past the request timeout, fails
 * the way the real client does. Counts the requests of each path. While `unreachable`, `/cluster/resources` fails as
 * a refused connection does.
 */
const fakeCluster = (lookupMs: (vmid: number) => number) => {
  const state = {
    resources: [container(101)] as Array<PveClusterResource>,
    resourcesMs: [] as Array<number>,
    unreachable: false
  }
  const requests = new Map<string, number>()
  const client = {
    cluster: "sim",
    get: (path: string) =>
      Effect.suspend((): Effect.Effect<unknown, ProxmoxTimedOut | ProxmoxUnreachable> => {
        requests.set(path, (requests.get(path) ?? 0) + 1)
        if (path === "/cluster/resources" && state.unreachable) {
          return Effect.fail(new ProxmoxUnreachable({ cluster: "sim", detail: "connection refused" }))
        }
        if (path === "/cluster/resources")
          return Effect.as(Effect.sleep(state.resourcesMs.shift() ?? 0), state.resources)
        const vmid = Number(/\/lxc\/(\d+)\/interfaces$/.exec(path)?.[1])
        const ms = lookupMs(vmid)
        if (ms >= requestTimeoutMs) {
          const timedOut = new ProxmoxTimedOut({
            cluster: "sim",
            operation: `GET ${path}`,
            timeout_ms: requestTimeoutMs
          })
          return Effect.andThen(Effect.sleep(requestTimeoutMs), Effect.fail(timedOut))
        }
        const answer = [{ name: "eth0", inet: `10.0.0.${vmid}/24`, hwaddr: "bc:24:11:00:00:01" }]
        return Effect.as(Effect.sleep(ms), answer)
      }),
    post: () => Effect.die("not used")
  } as unknown as PveClient
  return { client, state, requests: (path: string) => requests.get(path) ?? 0 }
}

const events = { publish: (input: unknown) => Effect.succeed(input) } as unknown as Events["Service"]

const options = { refreshIntervalMs: 3_000, lookupConcurrency: 4, addressRefreshMs: 30_000 }

// Lets the cache's fibers run up to the test clock's current time.
const settle = Effect.forEach(Array.from({ length: 50 }), () => Effect.yieldNow, { discard: true })

describe("ResourceCache", () => {
  it.effect("hung /interfaces lookups hold neither the first snapshot nor the poller; statuses stay current", () =>
    Effect.gen(function* () {
      // Four running containers whose lookups all hang until the request timeout: a refresh that waited for them
      // would hold the poller for 10 s (more with more containers than lookups at once), while the snapshot said its
      // data was current as of the refresh's start.
      const cluster = fakeCluster(() => requestTimeoutMs)
      cluster.state.resources = [container(101), container(102), container(103), container(104)]
      // Room for more lookups at once than there are containers: only the cache's own rule keeps a second one out.
      const cache = yield* makeResourceCache(cluster.client, { ...options, lookupConcurrency: 8 }, events)
      const first = yield* Effect.forkChild(cache.snapshot)
      yield* settle
      yield* TestClock.adjust(options.refreshIntervalMs)
      yield* settle
      const snapshot = first.pollUnsafe()
      assert.isDefined(snapshot, "the first snapshot waits no longer than one refresh interval for addresses")

      // A container stops upstream: the next polls see it, although the lookups still hang.
      cluster.state.resources = [container(101, "stopped"), container(102), container(103), container(104)]
      yield* TestClock.adjust(2 * options.refreshIntervalMs)
      yield* settle
      const later = yield* cache.snapshot
      assert.strictEqual(later.guests.find((g) => g.vmid === 101)?.status, "stopped")
      assert.isFalse(later.stale)
      assert.isAtLeast(later.refreshedAt ?? 0, 2 * options.refreshIntervalMs)
      // One lookup per container in flight at a time, however many refreshes found it due meanwhile.
      assert.strictEqual(cluster.requests("/nodes/pve1/lxc/102/interfaces"), 1)
      assert.isAtLeast(cluster.requests("/cluster/resources"), 3)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "addresses that answer within the refresh are in the first snapshot; a slower one lands when it answers",
    () =>
      Effect.gen(function* () {
        const cluster = fakeCluster((vmid) => (vmid === 102 ? 5_000 : 100))
        cluster.state.resources = [container(101), container(102)]
        const cache = yield* makeResourceCache(cluster.client, options, events)
        const first = yield* Effect.forkChild(cache.snapshot)
        yield* settle
        yield* TestClock.adjust(options.refreshIntervalMs)
        yield* settle
        const ipsOf = (snapshot: ClusterSnapshot, vmid: number) => snapshot.guests.find((g) => g.vmid === vmid)?.ips
        const snapshot = first.pollUnsafe()
        if (snapshot === undefined || snapshot._tag !== "Success") return assert.fail("no first snapshot after 3 s")
        assert.deepStrictEqual(ipsOf(snapshot.value, 101), ["10.0.0.101"])
        assert.deepStrictEqual(ipsOf(snapshot.value, 102), [])
        // 102 answers at 5 s, before the next refresh (6 s) has published anything: it is in the snapshot at once.
        yield* TestClock.adjust(2_000)
        yield* settle
        assert.deepStrictEqual(ipsOf(yield* cache.snapshot, 102), ["10.0.0.102"])
        assert.strictEqual(cluster.requests("/cluster/resources"), 1)
      }).pipe(Effect.scoped)
  )

  it.effect("a lookup that answers after its container was deleted does not bring its addresses back", () =>
    Effect.gen(function* () {
      // Refreshes at 0, 6 and 9 s (each waits up to 3 s for lookups, then 3 s to the next); 101's first lookup
      // answers at 8 s.
      const cluster = fakeCluster(() => 8_000)
      const cache = yield* makeResourceCache(cluster.client, options, events)
      yield* settle
      yield* TestClock.adjust(options.refreshIntervalMs)
      cluster.state.resources = []
      // The refresh at 6 s forgets 101 (deleted); its lookup answers at 8 s; 101 is created again for the one at 9 s.
      yield* TestClock.adjust(3_000)
      yield* settle
      yield* TestClock.adjust(2_000)
      yield* settle
      cluster.state.resources = [container(101)]
      yield* TestClock.adjust(1_000)
      yield* settle
      const snapshot = yield* cache.snapshot
      assert.deepStrictEqual(
        snapshot.guests.map((g) => [g.vmid, g.ips]),
        [[101, []]]
      )
      assert.strictEqual(cluster.requests("/nodes/pve1/lxc/101/interfaces"), 2, "the new 101 is looked up")
    }).pipe(Effect.scoped)
  )

  it.effect("an answer to a refresh sent before the one the snapshot holds does not replace it", () =>
    Effect.gen(function* () {
      const cluster = fakeCluster(() => 100)
      cluster.state.resources = [container(101, "stopped")]
      const cache = yield* makeResourceCache(cluster.client, options, events)
      yield* settle
      const statusOf101 = Effect.map(cache.snapshot, (s) => s.guests.find((g) => g.vmid === 101)?.status)
      assert.strictEqual(yield* statusOf101, "stopped")
      // A refresh sent while 101 is stopped is slow to answer (2 s); 101 starts, and one sent later answers at once.
      cluster.state.resourcesMs = [2_000]
      yield* Effect.forkChild(cache.refresh)
      yield* settle
      cluster.state.resources = [container(101, "running")]
      yield* Effect.forkChild(cache.refresh)
      yield* TestClock.adjust(100)
      yield* settle
      assert.strictEqual(yield* statusOf101, "running")
      // The slow one answers (before the poller's next refresh at 3 s) with what was true when it was sent.
      yield* TestClock.adjust(1_900)
      yield* settle
      assert.strictEqual(cluster.requests("/cluster/resources"), 3)
      assert.strictEqual(yield* statusOf101, "running", "the older answer did not replace the newer one")
    }).pipe(Effect.scoped)
  )

  it.effect("a confirmed status shows until a poll reports it, or until the hold has passed", () =>
    Effect.gen(function* () {
      const cluster = fakeCluster(() => 0)
      cluster.state.resources = [container(101, "stopped")]
      const cache = yield* makeResourceCache(cluster.client, options, events)
      yield* settle
      const statusOf101 = Effect.map(cache.snapshot, (s) => s.guests.find((g) => g.vmid === 101)?.status)
      const poll = Effect.andThen(TestClock.adjust(options.refreshIntervalMs), settle)
      // Started: Proxmox confirmed it, while /cluster/resources (RRD) still says stopped.
      yield* cache.confirmStatus(101, "running")
      assert.strictEqual(yield* statusOf101, "running", "at once")
      yield* poll
      assert.strictEqual(yield* statusOf101, "running", "a lagging poll does not undo it")
      // The polls catch up; a change after that (stopped from elsewhere) shows with the next poll.
      cluster.state.resources = [container(101, "running")]
      yield* poll
      cluster.state.resources = [container(101, "stopped")]
      yield* poll
      assert.strictEqual(yield* statusOf101, "stopped")
      // Confirmed running again, but the polls never agree (stopped again from elsewhere at once): they win once the
      // hold has passed.
      yield* cache.confirmStatus(101, "running")
      for (let t = 0; t < confirmedHoldMs - options.refreshIntervalMs; t += options.refreshIntervalMs) yield* poll
      assert.strictEqual(yield* statusOf101, "running", "held")
      yield* poll
      yield* poll
      assert.strictEqual(yield* statusOf101, "stopped", "past the hold")
    }).pipe(Effect.scoped)
  )

  it.effect("a guest's CPU use is rounded to two decimals, as a node's is (no 1.7000000000000002)", () =>
    Effect.gen(function* () {
      const cluster = fakeCluster(() => 100)
      cluster.state.resources = [{ ...container(101), cpu: 0.017 } as PveClusterResource]
      const cache = yield* makeResourceCache(cluster.client, options, events)
      const first = yield* Effect.forkChild(cache.snapshot)
      yield* settle
      yield* TestClock.adjust(options.refreshIntervalMs)
      yield* settle
      const snapshot = first.pollUnsafe()
      assert.isDefined(snapshot)
      assert.strictEqual(yield* Effect.map(cache.snapshot, (s) => s.guests[0]?.cpu_usage_pct), 1.7)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "an outage is logged once as it starts (a warning) and once as it ends (an info line), not per poll",
    () => {
      const logged: Array<string> = []
      return Effect.gen(function* () {
        const cluster = fakeCluster(() => 100)
        cluster.state.unreachable = true
        const published: Array<string> = []
        const recording = {
          publish: (input: { readonly action: string }) => Effect.sync(() => published.push(input.action))
        } as unknown as Events["Service"]
        yield* makeResourceCache(cluster.client, options, recording)
        yield* settle
        yield* TestClock.adjust(3 * options.refreshIntervalMs)
        assert.strictEqual(cluster.requests("/cluster/resources"), 4)
        assert.deepStrictEqual(logged, [
          'Warn Proxmox VE cluster "sim": refreshing its resources failed, the lists show the last known ones ' +
            '(Proxmox VE cluster "sim" is unreachable: connection refused)'
        ])

        cluster.state.unreachable = false
        yield* TestClock.adjust(3 * options.refreshIntervalMs)
        assert.strictEqual(logged.length, 2)
        assert.strictEqual(logged[1], 'Info Proxmox VE cluster "sim" answers again; its resources are current')

        // The next outage is a new one.
        cluster.state.unreachable = true
        yield* TestClock.adjust(3 * options.refreshIntervalMs)
        assert.deepStrictEqual(
          logged.map((line) => line.split(" ")[0]),
          ["Warn", "Info", "Warn"]
        )
        assert.deepStrictEqual(published, ["cache_stale", "cache_recovered", "cache_stale"])
      }).pipe(
        Effect.scoped,
        Effect.provide(Logger.layer([Logger.make(({ logLevel, message }) => logged.push(`${logLevel} ${message}`))]))
      )
    }
  )
})
