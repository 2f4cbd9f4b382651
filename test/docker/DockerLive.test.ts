import { assert, describe, it } from "@effect/vitest"
import {
  ContainerNotFound,
  DockerHostUnreachable,
  DockerNotConfigured,
  InvalidArgument
} from "@gatehouse-edge/contract/domain"
import { Context, Effect, Fiber, Layer, Stream } from "effect"
import { Docker } from "../../packages/core/src/docker/Docker.js"
import * as DockerLive from "../../packages/core/src/docker/DockerLive.js"
import { startDockerd } from "../support/Dockerd.js"
import { requireTool } from "../support/e2e.js"
import { waitFor } from "../support/WaitFor.js"
import { chatty, logsSuite, serviceOn, statsSuite } from "./EngineSuite.js"

// The Docker service against a real dockerd (Debian docker.io) started for each test, containers with NetworkMode
// `none`, the busybox image imported from a local rootfs.

const dockerd = requireTool("dockerd")

describe.skipIf(dockerd.skip)(
  "DockerLive against a real dockerd",
  // Each test starts its own dockerd (a few seconds) and real containers.
  { timeout: 90_000 },
  () => {
    it.live("lists containers; finds them by id, id prefix and name; refuses malformed and unknown references", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* startDockerd
          const id = yield* engine.run("web", { ...chatty, Labels: { "proxy.web.port": "80" } })
          yield* engine.run("idle", { Cmd: ["true"] }, false)
          const docker = yield* serviceOn(engine)
          const all = yield* docker.containers
          const web = all.find((c) => c.name === "web")
          assert.deepInclude(web as object, { host: "local", id, image: engine.image, state: "running" })
          assert.deepStrictEqual(web?.labels, { "proxy.web.port": "80" })
          assert.strictEqual(all.find((c) => c.name === "idle")?.state, "created")
          for (const ref of [id, id.slice(0, 12), "web"]) assert.strictEqual((yield* docker.stats(ref)).id, id, ref)
          for (const bad of ["", "a/b", "x y", "-rf"])
            assert.instanceOf(yield* Effect.flip(docker.stats(bad)), InvalidArgument, bad)
          assert.instanceOf(yield* Effect.flip(docker.stats("nope")), ContainerNotFound)
          const none = yield* Effect.map(Layer.build(DockerLive.layer({ hosts: [] })), (c) => Context.get(c, Docker))
          assert.instanceOf(yield* Effect.flip(none.containers), DockerNotConfigured)
        })
      )
    )

    it.live("stats: one sample, and a stream at the engine's cadence, normalized (the suite Podman runs too)", () =>
      Effect.scoped(Effect.flatMap(startDockerd, statsSuite))
    )

    it.live(
      "logs: the last lines of stdout and stderr, timestamps, a TTY container, and a follow (as for Podman)",
      () => Effect.scoped(Effect.flatMap(startDockerd, logsSuite))
    )

    it.live("start, stop, restart: idempotent, with the state after", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* startDockerd
          yield* engine.run("app", { Cmd: ["sleep", "1000"], StopSignal: "SIGKILL" })
          const docker = yield* serviceOn(engine)
          assert.deepStrictEqual(yield* docker.act("app", "start"), {
            message: "container already running",
            state: "running"
          })
          assert.deepStrictEqual(yield* docker.act("app", "stop"), { message: "container stopped", state: "exited" })
          assert.deepStrictEqual(yield* docker.act("app", "stop"), {
            message: "container already stopped",
            state: "exited"
          })
          assert.deepStrictEqual(yield* docker.act("app", "start"), { message: "container started", state: "running" })
          assert.deepStrictEqual(yield* docker.act("app", "restart"), {
            message: "container restarted",
            state: "running"
          })
        })
      )
    )

    it.live("an engine that stops answering keeps its containers' routes, with the problem reported", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* startDockerd
          yield* engine.run("web", {
            ...chatty,
            Labels: { "proxy.aliases": "web", "proxy.web.host": "127.0.0.1", "proxy.web.port": "8080" }
          })
          const docker = yield* serviceOn(engine)
          const before = yield* docker.routeState
          assert.deepStrictEqual(
            before.routes.map((r) => r.route.alias),
            ["web"]
          )
          assert.deepStrictEqual(before.issues, [])
          yield* engine.kill
          const down = yield* docker.routeState
          assert.deepStrictEqual(down.routes, before.routes, "the routes it had when the engine last answered")
          assert.strictEqual(down.issues.length, 1)
          assert.match(down.issues[0]!.message, /^Docker host "local" is unreachable/)
          assert.strictEqual(down.issues[0]!.provider, "docker:local")
        })
      )
    )

    it.live(
      "container events go on across a daemon restart: what happened before the stream was back is not lost",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const engine = yield* startDockerd
            const docker = yield* serviceOn(engine)
            const seen: Array<string> = []
            yield* Effect.forkScoped(
              Stream.runForEach(docker.events, (event) => Effect.sync(() => seen.push(`${event.action}:${event.name}`)))
            )
            const waitToSee = (what: string) =>
              waitFor(
                Effect.sync(() => seen),
                (s) => s.includes(what),
                what,
                40_000
              )
            yield* engine.run("before", chatty)
            yield* waitToSee("start:before")
            yield* engine.kill
            yield* engine.start
            // Started as soon as the daemon is back: the event stream is most likely still backing off, and asks
            // for what it missed when it opens again.
            yield* engine.run("after", chatty)
            yield* waitToSee("start:after")
            assert.strictEqual(seen.filter((e) => e === "start:before").length, 1, seen.join(" "))
          })
        )
    )

    it.live("the daemon dying mid-stream fails the stream; once it is back, calls work again", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* startDockerd
          yield* engine.run("chatty", chatty)
          const docker = yield* serviceOn(engine)
          const follow = yield* docker.followLogs("chatty", { limit: 1 })
          const running = yield* Effect.forkChild(Stream.runDrain(follow))
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 300)))
          yield* engine.kill
          const error = yield* Effect.flip(Fiber.join(running))
          assert.instanceOf(error, DockerHostUnreachable)
          assert.match(error.message, /^Docker host "local" is unreachable/)
          assert.instanceOf(yield* Effect.flip(docker.containers), DockerHostUnreachable)
          yield* engine.start
          // Past the back-off (at most 30 s; here the first step, 0.5 s), the engine is asked again.
          const deadline = Date.now() + 15_000
          let listed = yield* Effect.result(docker.containers)
          while (listed._tag === "Failure" && Date.now() < deadline) {
            yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
            listed = yield* Effect.result(docker.containers)
          }
          assert.strictEqual(listed._tag, "Success")
        })
      )
    )
  }
)
