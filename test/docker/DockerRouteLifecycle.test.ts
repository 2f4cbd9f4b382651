import { assert, describe, it } from "@effect/vitest"
import { RouteNotFound } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer } from "effect"
import * as DockerLive from "../../packages/core/src/docker/DockerLive.js"
import * as DockerRouteProvider from "../../packages/core/src/docker/DockerRouteProvider.js"
import * as EventBus from "../../packages/core/src/events/EventBus.js"
import { EventRepository } from "../../packages/core/src/events/EventRepository.js"
import { Events } from "../../packages/core/src/events/Events.js"
import { Routes } from "../../packages/core/src/routes/Routes.js"
import * as RoutesLive from "../../packages/core/src/routes/RoutesLive.js"
import * as StoreLive from "../../packages/core/src/store/StoreLive.js"
import { startDockerd } from "../support/Dockerd.js"
import { startEngineProxy } from "../support/EngineProxy.js"
import { requireTool } from "../support/e2e.js"
import { waitFor } from "../support/WaitFor.js"

// A labelled container removed or renamed: the route table follows within a second or so of the engine's event, not
// at the next 30 s re-read. The real service over a real dockerd, the real provider and route table (the store in
// memory), as the server composes them.

const dockerd = requireTool("dockerd")

const labelled = (alias: string) => ({
  Cmd: ["sleep", "1000"],
  StopSignal: "SIGKILL",
  Labels: { [`proxy.${alias}.host`]: "127.0.0.1", [`proxy.${alias}.port`]: "8080" }
})

/** The route table and event log of a server whose only route source is the engine at `socket`. */
const routeTableOver = (socket: string) =>
  Effect.map(
    Layer.build(
      DockerRouteProvider.layer.pipe(
        Layer.provideMerge(RoutesLive.layer),
        Layer.provideMerge(
          EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory))
        ),
        Layer.provide(DockerLive.layer({ hosts: [{ name: "local", url: `unix://${socket}`, tls: undefined }] }))
      )
    ),
    (context) => ({ routes: Context.get(context, Routes), events: Context.get(context, Events) })
  )

// Well within the 30 s re-read that would otherwise catch up with the change.
const prompt = 5_000

describe.skipIf(dockerd.skip)("routes of containers removed or renamed", { timeout: 90_000 }, () => {
  it.live("a removed container's route goes, a renamed one's names it anew, promptly; neither is a docker event", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* startDockerd
        const gone = yield* engine.run("gone", labelled("gone"))
        const renamed = yield* engine.run("before", labelled("kept"))
        // In front of the engine: shows when the provider's event stream is open (events before it are not its).
        const proxy = yield* startEngineProxy(engine.socket)
        const { routes, events } = yield* routeTableOver(proxy.socket)
        yield* waitFor(
          Effect.sync(() => proxy.open()),
          (open) => open.some((request) => request.startsWith("GET /events")),
          "the event stream to open"
        )
        const nameOf = (alias: string) =>
          Effect.map(Effect.result(routes.get(alias)), (r) =>
            r._tag === "Success" ? r.success.container?.name : r.failure
          )
        assert.strictEqual(yield* nameOf("gone"), "gone")
        assert.strictEqual(yield* nameOf("kept"), "before")

        // Stopped, its route stays (it follows the container's state); removed, it goes with it.
        assert.strictEqual((yield* engine.api("POST", `/containers/${gone}/stop`)).status, 204)
        yield* waitFor(
          Effect.map(Effect.result(routes.get("gone")), (r) =>
            r._tag === "Success" ? r.success.container?.state : ""
          ),
          (state) => state === "exited",
          "the stopped container's route to follow its state"
        )
        assert.strictEqual((yield* engine.api("DELETE", `/containers/${gone}`)).status, 204)
        yield* waitFor(
          nameOf("gone"),
          (name) => name instanceof RouteNotFound,
          "the removed container's route to go",
          prompt
        )

        assert.strictEqual((yield* engine.api("POST", `/containers/${renamed}/rename?name=after`)).status, 204)
        yield* waitFor(nameOf("kept"), (name) => name === "after", "the route to name the container anew", prompt)

        const recorded = yield* events.history({ category: "docker", limit: 100 })
        assert.sameMembers(
          [...new Set(recorded.map((e) => e.action))],
          ["stop", "die"],
          "a removal or a rename is no docker event (the starts came before the service)"
        )
      })
    )
  )
})
