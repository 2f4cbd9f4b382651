import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { HealthMemory } from "../../src/health/Health.js"
import { Uptime } from "../../src/uptime/Uptime.js"
import { info, routeRecord, uptimeWorld } from "./UptimeWorld.js"

// Pages keep each route's closed buckets in memory (UptimeWindows) and read only what closed since: they must show
// exactly what reading everything from the store shows.

describe("Uptime: pages built incrementally", () => {
  const statuses = ["healthy", "healthy", "unhealthy", "napping", "healthy", "error", "starting"] as const
  const mapAt = (i: number) => {
    const status = statuses[(i * 7 + Math.floor(i / 11)) % statuses.length]!
    return { a: info(status, 1 + (i % 5)), b: info(status, 1 + (i % 5)) }
  }
  // Route `a` is read every few seconds (its closed buckets come from memory, extended as buckets close); `b` has
  // the very same samples and is read only at the end (from the store): both pages must be the same.
  const same = Effect.gen(function* () {
    const uptime = yield* Uptime
    for (const period of ["5m", "15m", "1h"] as const) {
      const [a, b] = (yield* uptime.query({ period })).data
      assert.deepStrictEqual({ ...a!, alias: "b" }, b, period)
    }
  })

  it.effect("equal the page read from the store, across bucket closes, flushes and the window sliding", () =>
    Effect.gen(function* () {
      const uptime = yield* Uptime
      const health = yield* HealthMemory
      for (let i = 1; i <= 400; i++) {
        yield* health.set(mapAt(i))
        yield* TestClock.adjust("1 second")
        if (i % 7 === 0)
          for (const period of ["5m", "15m", "1h"] as const) yield* uptime.query({ period, keyword: "a" })
      }
      yield* same
      // Not read for longer than a window: what `a` kept is all out of it.
      yield* TestClock.adjust("6 minutes")
      yield* same
      // Not read for 10 minutes: forgotten, read from the store again.
      yield* TestClock.adjust("11 minutes")
      yield* same
    }).pipe(Effect.provide(uptimeWorld({ routes: [routeRecord("a"), routeRecord("b")], health: mapAt(0) })))
  )
})
