import { assert, describe, it } from "@effect/vitest"
import { EventsTrimmed } from "@gatehouse-edge/contract/domain"
import { Effect, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { Events } from "../../src/events/Events.js"
import type { ClusterRuntime } from "../../src/hypervisor/ClusterRuntime.js"
import { watchPermissions } from "../../src/hypervisor/PermissionWatch.js"

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
})
