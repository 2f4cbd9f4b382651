import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { type ContainerEvent, Docker } from "../../src/docker/Docker.js"
import * as DockerRouteProvider from "../../src/docker/DockerRouteProvider.js"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Events } from "../../src/events/Events.js"
import type { ProviderState } from "../../src/routes/RouteProviders.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { eventually } from "../events/TestBus.js"
import { validRoute } from "../routes/helpers.js"

// The provider over a Docker service that offers a fixed state and the container events the test sends: what the
// route table and the event log make of the provider's re-reads. (DockerRoutes.test.ts runs it on a real dockerd.)

const stateWith = (badLabel: string): ProviderState => ({
  routes: [{ route: validRoute('web:\n  port: "8080"\n'), source: "docker:local", excluded: false }],
  issues: [{ path: [badLabel], message: "port 99999 is out of range 0–65535", provider: "docker:local" }]
})

const started: ContainerEvent = { host: "local", id: "c0ffee", name: "other", action: "start" }

/**
 * The Docker service as far as the provider uses it: `routeState` answers `state()`, counted in `counter.reads`.
 * `events` may wrap the real event bus the provider records into.
 */
const stubDocker = (state: () => ProviderState, events: (real: Events["Service"]) => Events["Service"] = (e) => e) =>
  Effect.gen(function* () {
    const counter = { reads: 0 }
    const containerEvents = yield* Queue.unbounded<ContainerEvent>()
    const docker = {
      // A fresh state per read, as the engines' lists are read afresh.
      routeState: Effect.sync(() => {
        counter.reads++
        const current = state()
        return { routes: [...current.routes], issues: [...current.issues] }
      }),
      events: Stream.fromQueue(containerEvents)
    } as unknown as Docker["Service"]
    const context = yield* Layer.build(
      DockerRouteProvider.layer.pipe(
        Layer.provideMerge(RoutesLive.layer),
        Layer.provideMerge(
          Layer.effect(Events, Effect.map(Effect.service(Events), events)).pipe(
            Layer.provide(
              EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory))
            )
          )
        ),
        Layer.provide(Layer.succeed(Docker, docker))
      )
    )
    return { counter, containerEvents, context }
  })

describe("the Docker route provider", () => {
  it.effect("reads again every 2 s while an engine does not answer, and stops once it does", () =>
    Effect.gen(function* () {
      const web = { route: validRoute('web:\n  port: "8080"\n'), source: "docker:local", excluded: false }
      const up: ProviderState = { routes: [web], issues: [] }
      const down: ProviderState = {
        routes: [web],
        issues: [{ path: [], message: 'Docker host "local" is unreachable: connect ENOENT', provider: "docker:local" }]
      }
      let current = down
      const { counter, context } = yield* stubDocker(() => current)
      const routes = Context.get(context, Routes)
      const problems = Effect.map(Stream.runHead(routes.problems), (head) => (head._tag === "Some" ? head.value : []))
      const tick = Effect.gen(function* () {
        const before = counter.reads
        yield* TestClock.adjust("2 seconds")
        yield* eventually(
          "a read",
          Effect.sync(() => counter.reads > before)
        )
      })
      // Let the provider's timers start (their first sleep) before the clock moves.
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow
      yield* tick
      yield* tick
      assert.strictEqual(counter.reads, 3)
      assert.strictEqual((yield* problems).length, 1, "the engine's problem stands")
      current = up
      yield* tick
      assert.deepStrictEqual(yield* problems, [], "cleared on the first read after the engine is back")
      assert.deepStrictEqual(
        (yield* routes.list).map((r) => r.route.alias),
        ["web"]
      )
      // Answering again, it is read on events and every 30 s only.
      yield* TestClock.adjust("20 seconds")
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow
      assert.strictEqual(counter.reads, 4)
    }).pipe(Effect.scoped)
  )

  it.effect("a re-read that finds the same routes and problems is not passed on: no problem is announced twice", () =>
    Effect.gen(function* () {
      let current = stateWith("proxy.api.port")
      const { counter, containerEvents, context } = yield* stubDocker(() => current)
      const events = Context.get(context, Events)
      const problemsAnnounced = Effect.map(
        events.history({ category: "config" }),
        (history) => history.filter((e) => e.action === "error").length
      )
      assert.strictEqual(yield* problemsAnnounced, 1, "the bad label, when the provider joins")

      // Each container event makes the provider read the engines again (after a short quiet period).
      const dockerEvents = Effect.map(events.history({ category: "docker" }), (history) => history.length)
      const reread = Effect.gen(function* () {
        const before = counter.reads
        const recorded = yield* dockerEvents
        yield* Queue.offer(containerEvents, started)
        // Recorded as a docker/start event first: then the quiet period is running on the test clock.
        yield* eventually(
          "the container event recorded",
          Effect.map(dockerEvents, (n) => n > recorded)
        )
        yield* TestClock.adjust("300 millis")
        yield* eventually(
          "a re-read",
          Effect.sync(() => counter.reads > before)
        )
      })
      for (let i = 0; i < 3; i++) yield* reread
      assert.strictEqual(counter.reads, 4)
      assert.strictEqual(yield* problemsAnnounced, 1, "three re-reads found the same: nothing announced again")

      current = stateWith("proxy.web.port")
      yield* reread
      yield* eventually(
        "the new problem announced",
        Effect.map(problemsAnnounced, (n) => n === 2)
      )
    }).pipe(Effect.scoped)
  )

  it.effect("a container event the store refuses to record is logged; the provider goes on reading the engines", () =>
    Effect.gen(function* () {
      let current = stateWith("proxy.api.port")
      let refuse = true
      const { counter, containerEvents, context } = yield* stubDocker(
        () => current,
        (real) => ({
          ...real,
          publish: (input) =>
            input.category === "docker" && refuse
              ? Effect.sync(() => {
                  refuse = false
                }).pipe(Effect.andThen(Effect.die(new Error("SQLITE_FULL: database or disk is full"))))
              : real.publish(input)
        })
      )
      const routes = Context.get(context, Routes)
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow
      yield* Queue.offer(containerEvents, started)
      yield* eventually(
        "the refused record",
        Effect.sync(() => !refuse)
      )
      // The next read (the 30 s resync) still happens, and its routes reach the table.
      current = { routes: [{ ...current.routes[0]!, route: validRoute('api:\n  port: "9090"\n') }], issues: [] }
      const before = counter.reads
      yield* TestClock.adjust("30 seconds")
      yield* eventually(
        "a read after the refused record",
        Effect.sync(() => counter.reads > before)
      )
      yield* eventually(
        "the new routes in the table",
        Effect.map(routes.list, (list) => list.some((r) => r.route.alias === "api"))
      )
    }).pipe(Effect.scoped)
  )
})
