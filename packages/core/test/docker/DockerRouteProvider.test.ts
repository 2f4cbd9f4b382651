import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { type ContainerEvent, Docker } from "../../src/docker/Docker.js"
import * as DockerRouteProvider from "../../src/docker/DockerRouteProvider.js"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Events } from "../../src/events/Events.js"
import type { ProviderState } from "../../src/routes/RouteProviders.js"
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

describe("the Docker route provider", () => {
  it.effect("a re-read that finds the same routes and problems is not passed on: no problem is announced twice", () =>
    Effect.gen(function* () {
      let reads = 0
      let current = stateWith("proxy.api.port")
      const containerEvents = yield* Queue.unbounded<ContainerEvent>()
      // Only what the provider uses; the rest of the service is not reached.
      const docker = {
        // A fresh state per read, as the engines' lists are read afresh.
        routeState: Effect.sync(() => {
          reads++
          return { routes: [...current.routes], issues: [...current.issues] }
        }),
        events: Stream.fromQueue(containerEvents)
      } as unknown as Docker["Service"]
      const context = yield* Layer.build(
        DockerRouteProvider.layer.pipe(
          Layer.provideMerge(RoutesLive.layer),
          Layer.provideMerge(
            EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory))
          ),
          Layer.provide(Layer.succeed(Docker, docker))
        )
      )
      const events = Context.get(context, Events)
      const problemsAnnounced = Effect.map(
        events.history({ category: "config" }),
        (history) => history.filter((e) => e.action === "error").length
      )
      assert.strictEqual(yield* problemsAnnounced, 1, "the bad label, when the provider joins")

      // Each container event makes the provider read the engines again (after a short quiet period).
      const dockerEvents = Effect.map(events.history({ category: "docker" }), (history) => history.length)
      const reread = Effect.gen(function* () {
        const before = reads
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
          Effect.sync(() => reads > before)
        )
      })
      for (let i = 0; i < 3; i++) yield* reread
      assert.strictEqual(reads, 4)
      assert.strictEqual(yield* problemsAnnounced, 1, "three re-reads found the same: nothing announced again")

      current = stateWith("proxy.web.port")
      yield* reread
      yield* eventually(
        "the new problem announced",
        Effect.map(problemsAnnounced, (n) => n === 2)
      )
    }).pipe(Effect.scoped)
  )
})
