import { assert, describe, it } from "@effect/vitest"
import { EventsTrimmed, ProxmoxUnreachable } from "@gatehouse-edge/contract/domain"
import { Effect, Logger, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { Events } from "../../src/events/Events.js"
import type { ClusterRuntime } from "../../src/hypervisor/ClusterRuntime.js"
import { watchPermissions } from "../../src/hypervisor/PermissionWatch.js"
import type { PveClient } from "../../src/hypervisor/PveClient.js"
import { makeResourceCache } from "../../src/hypervisor/ResourceCache.js"

// A cluster whose permission checks are only counted.
const countingCluster = (checks: { count: number }) =>
  ({
    name: "pve",
    client: {
      get: () =>
        Effect.sync(() => {
          checks.count++
          return []
        })
    }
  }) as unknown as ClusterRuntime

const refreshIntervalMs = 5_000

/**
 * A cluster "pve" that refuses connections until `upstream.answers`, then answers as a token with privilege
 * separation and no ACL does (empty lists, no privilege anywhere), behind the real cache: its polls are what tell the
 * watch that the cluster answers again. Config reloads are what the test offers to `reloads`; the events published
 * and the lines logged are recorded.
 */
const unreachableAtStart = Effect.gen(function* () {
  const upstream = { answers: false, permissionChecks: 0 }
  const client = {
    cluster: "pve",
    get: (path: string) =>
      Effect.suspend(() => {
        if (path === "/access/permissions") upstream.permissionChecks++
        if (!upstream.answers)
          return Effect.fail(new ProxmoxUnreachable({ cluster: "pve", detail: "connection refused" }))
        return Effect.succeed(path === "/access/permissions" ? {} : [])
      })
  } as unknown as PveClient
  const reloads = yield* Queue.unbounded<unknown>()
  const published: Array<{ readonly category: string; readonly action: string }> = []
  const events = {
    history: () => Effect.succeed([]),
    publish: (input: { readonly category: string; readonly action: string }) =>
      Effect.sync(() => published.push(input)),
    follow: () => Stream.fromQueue(reloads)
  } as unknown as Events["Service"]
  const cache = yield* makeResourceCache(
    client,
    { refreshIntervalMs, lookupConcurrency: 4, addressRefreshMs: 30_000 },
    events
  )
  yield* watchPermissions([{ name: "pve", client, cache } as unknown as ClusterRuntime], events)
  const permissionEvents = () => published.filter((e) => e.category === "hypervisor" && e.action === "permissions")
  return { upstream, reloads, permissionEvents }
})

/** Runs `test` with the lines it logs (`Warn <message>`) gathered in `logged`. */
const withLogs = <A, E>(test: (logged: ReadonlyArray<string>) => Effect.Effect<A, E>) => {
  const logged: Array<string> = []
  return test(logged).pipe(
    Effect.provide(Logger.layer([Logger.make(({ logLevel, message }) => logged.push(`${logLevel} ${message}`))]))
  )
}

const lackWarnings = (logged: ReadonlyArray<string>) =>
  logged.filter((line) => line.startsWith("Warn ") && line.includes("credentials lack"))

const configReload = { category: "config", action: "reload", data: { source: "config" } }

describe("the permission watch", () => {
  it.effect("checks again and follows on when its follow of config reloads fails with a gap", () =>
    Effect.gen(function* () {
      const checks = { count: 0 }
      const follows: Array<string | undefined> = []
      const events = {
        history: () => Effect.succeed([]),
        publish: () => Effect.void,
        follow: (query: { readonly since?: string }) => {
          follows.push(query.since)
          // The first follow's replay was overtaken by the trimming; the second one waits for reloads.
          return follows.length === 1 ? Stream.fail(new EventsTrimmed({ since: "a", oldest_id: "b" })) : Stream.never
        }
      } as unknown as Events["Service"]
      yield* watchPermissions([countingCluster(checks)], events)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(checks.count, 2, "the check at start, and one after the gap")
      assert.strictEqual(follows.length, 2)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(checks.count, 2, "then it only follows")
    }).pipe(Effect.scoped)
  )

  it.effect("a cluster unreachable at start is checked once it answers: one event and one warning", () =>
    withLogs((logged) =>
      Effect.gen(function* () {
        const { upstream, permissionEvents } = yield* unreachableAtStart
        yield* TestClock.adjust(3 * refreshIntervalMs)
        assert.strictEqual(upstream.permissionChecks, 1, "an unreachable cluster is not asked again while it is down")
        assert.strictEqual(permissionEvents().length, 0)

        upstream.answers = true
        yield* TestClock.adjust(refreshIntervalMs)
        assert.strictEqual(permissionEvents().length, 1, "checked at the first poll that was answered")
        assert.strictEqual(lackWarnings(logged).length, 1)
        assert.include(lackWarnings(logged)[0], 'Proxmox VE cluster "pve": the credentials lack Sys.Audit on /nodes')

        yield* TestClock.adjust("10 minutes")
        assert.strictEqual(upstream.permissionChecks, 2, "once it ran, it waits for a reload")
        assert.strictEqual(permissionEvents().length, 1)
        assert.strictEqual(lackWarnings(logged).length, 1)
      }).pipe(Effect.scoped)
    )
  )

  it.effect("a reload while the cluster is down replaces the waiting check: one check when it answers", () =>
    withLogs((logged) =>
      Effect.gen(function* () {
        const { upstream, reloads, permissionEvents } = yield* unreachableAtStart
        yield* TestClock.adjust(refreshIntervalMs)
        yield* Queue.offer(reloads, configReload)
        yield* TestClock.adjust(refreshIntervalMs)
        assert.strictEqual(upstream.permissionChecks, 2, "the check at start, and the reload's")

        upstream.answers = true
        yield* TestClock.adjust(refreshIntervalMs)
        yield* TestClock.adjust("10 minutes")
        assert.strictEqual(upstream.permissionChecks, 3)
        assert.strictEqual(permissionEvents().length, 1)
        assert.strictEqual(lackWarnings(logged).length, 1)
      }).pipe(Effect.scoped)
    )
  )
})
