import * as os from "node:os"
import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Queue, Ref, SubscriptionRef, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { Health } from "../../src/health/Health.js"
import * as HealthLive from "../../src/health/HealthLive.js"
import { makeServingSignal, Serving, type ServingShape } from "../../src/health/Serving.js"
import type { RouteRecord } from "../../src/routes/Routes.js"
import { eventsLayer, routesLayer } from "./Fakes.js"
import { recordOf, route } from "./RouteFixtures.js"

/**
 * Health over one file-server route (its probe is a stat of a directory), with the checks it starts counted from
 * their `Health.check` spans: a span starts synchronously when a check begins, and `TestClock.adjust` returns only
 * once the fibers it woke are suspended again, so the count right after an adjustment is exact.
 */
const harness = (serving: ServingShape | undefined) =>
  Effect.gen(function* () {
    const table = yield* SubscriptionRef.make<ReadonlyArray<RouteRecord>>([
      recordOf(route("dir", "fileserver", 0, {}, { root: os.tmpdir() }))
    ])
    const published = yield* Ref.make<ReadonlyArray<Event>>([])
    const health = HealthLive.layer.pipe(Layer.provide(routesLayer(table)), Layer.provide(eventsLayer(published)))
    const layer = serving === undefined ? health : health.pipe(Layer.provide(Layer.succeed(Serving)(serving)))
    let started = 0
    const ended = yield* Queue.unbounded<void>()
    const native = yield* Tracer.Tracer
    const tracer = Tracer.make({
      span(options) {
        const span = native.span(options)
        if (options.name !== "Health.check") return span
        started++
        const end = span.end.bind(span)
        span.end = (endTime, exit) => {
          end(endTime, exit)
          Queue.offerUnsafe(ended, undefined)
        }
        return span
      }
    })
    // The probe is real I/O: its end is awaited on the live clock, with a deadline.
    const firstCheckEnded = TestClock.withLive(
      Effect.timeoutOrElse(Queue.take(ended), {
        duration: 5000,
        orElse: () => Effect.die(new Error(`timed out waiting for the first check (${started} started)`))
      })
    )
    const run = <A, E>(test: Effect.Effect<A, E, Health>) =>
      test.pipe(Effect.provide(layer), Effect.provideService(Tracer.Tracer, tracer))
    return { started: () => started, firstCheckEnded, run }
  })

describe("Health waits for the server to listen", () => {
  it.effect("no check runs before the serving signal, and the first one comes within a second after it", () =>
    Effect.gen(function* () {
      const signal = yield* makeServingSignal
      const h = yield* harness(signal.serving)
      yield* h.run(
        Effect.gen(function* () {
          const health = yield* Health
          // Far past the first second in which every monitor checks once its wait is over.
          yield* TestClock.adjust("10 seconds")
          assert.strictEqual(h.started(), 0, "a check ran before the server listened")
          assert.strictEqual((yield* health.snapshot).dir?.status, "starting")

          yield* signal.listening
          yield* TestClock.adjust("1 second")
          yield* h.firstCheckEnded
          assert.strictEqual(h.started(), 1)
          assert.strictEqual((yield* health.snapshot).dir?.status, "healthy")
        })
      )
    }).pipe(Effect.scoped)
  )

  it.effect("without a serving signal (the core embedded without our transports) checks start at once", () =>
    Effect.gen(function* () {
      const h = yield* harness(undefined)
      yield* h.run(
        Effect.gen(function* () {
          const health = yield* Health
          yield* TestClock.adjust("1 second")
          yield* h.firstCheckEnded
          assert.strictEqual((yield* health.snapshot).dir?.status, "healthy")
        })
      )
    }).pipe(Effect.scoped)
  )
})
