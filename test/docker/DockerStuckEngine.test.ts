import { assert, describe, it } from "@effect/vitest"
import { DockerHostUnreachable } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Exit, type Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Docker } from "../../packages/core/src/docker/Docker.js"
import { engineCallTimeoutMs, engineListTimeoutMs } from "../../packages/core/src/docker/DockerEngine.js"
import * as DockerLive from "../../packages/core/src/docker/DockerLive.js"
import { request } from "../../packages/transport-http/test/support/Http.js"
import { startDockerd } from "../support/Dockerd.js"
import { startEngineProxy } from "../support/EngineProxy.js"
import { requireTool } from "../support/e2e.js"
import { silentServer } from "../support/SilentServer.js"
import { startTestServer } from "../support/TestServer.js"
import { waitFor } from "../support/WaitFor.js"

// A real dockerd (`local`) next to an engine that accepts connections and never answers (`stuck`). Once `stuck` is
// known to be down, nothing on `local` waits for it: lookups, actions and route reads answer from `local` alone, and
// a lookup that needs `stuck` answers its 503 at once.

const dockerd = requireTool("dockerd")

const labelled = (alias: string) => ({
  Cmd: ["sleep", "1000"],
  StopSignal: "SIGKILL",
  Labels: { [`proxy.${alias}.host`]: "127.0.0.1", [`proxy.${alias}.port`]: "8080" }
})

/**
 * The outcome of `fiber`, which must come without the clock moving: under the TestClock an effect that waits on
 * the stuck engine (its timeouts are the clock's) never does, and the wall-clock deadline then fails the test.
 */
const settled = <A, E>(fiber: Fiber.Fiber<A, E>, what: string) =>
  Effect.map(
    waitFor(
      Effect.sync(() => fiber.pollUnsafe()),
      (exit) => exit !== undefined,
      what,
      15_000
    ),
    (exit) => exit!
  )

/** Runs `effect` (with the clock standing still) and gives its outcome once it has one. */
const promptly = <A, E>(effect: Effect.Effect<A, E>, what: string) =>
  Effect.flatMap(Effect.forkChild(effect), (fiber) => settled(fiber, what))

const stuckIssue = 'Docker host "stuck" is unreachable: timed out: no answer within 5 s'

describe.skipIf(dockerd.skip)("a Docker engine that never answers, next to one that does", { timeout: 120_000 }, () => {
  it.effect(
    "holds up nothing on the other once it is down: route reads, actions and lookups, across its back-off",
    () =>
      Effect.gen(function* () {
        const engine = yield* startDockerd
        yield* engine.run("web", labelled("web"))
        // In front of dockerd: shows when the service's listing of `local` has been answered.
        const proxy = yield* startEngineProxy(engine.socket)
        const silent = yield* silentServer
        const docker = yield* Effect.map(
          Layer.build(
            DockerLive.layer({
              hosts: [
                { name: "local", url: `unix://${proxy.socket}`, tls: undefined },
                { name: "stuck", url: `tcp://127.0.0.1:${silent.port}`, tls: undefined }
              ]
            })
          ),
          (context) => Context.get(context, Docker)
        )

        // The first read (the server's start): bounded by the listing's timeout, not a call's 30 s.
        const start = yield* Effect.forkChild(docker.routeState)
        yield* Effect.promise(() => silent.connected)
        yield* waitFor(
          Effect.sync(() => proxy),
          (p) => p.requests().some((r) => r.startsWith("GET /containers/json")) && p.open().length === 0,
          "local's listing to be answered"
        )
        yield* TestClock.adjust(engineListTimeoutMs)
        const first = yield* settled(start, "the first route read, once the listing of stuck timed out")
        assert.isTrue(Exit.isSuccess(first))
        const state = Exit.isSuccess(first) ? first.value : undefined
        assert.deepStrictEqual(
          state?.routes.map((r) => r.route.alias),
          ["web"]
        )
        assert.deepStrictEqual(
          state?.issues.map((i) => [i.provider, i.message]),
          [["docker:stuck", stuckIssue]]
        )
        assert.isBelow(engineListTimeoutMs, engineCallTimeoutMs)

        // Past every step of the back-off (0.5 s doubling to 30 s): each action on local answers with the clock
        // standing still, so none waited on stuck.
        for (let step = 0; step < 20; step++) {
          yield* TestClock.adjust("2 seconds")
          const action = step % 2 === 0 ? "stop" : "start"
          const acted = yield* promptly(
            docker.act("web", action),
            `${action} web, ${2 * (step + 1)} s after stuck went down`
          )
          assert.deepStrictEqual(
            Exit.isSuccess(acted) ? acted.value.state : acted,
            action === "stop" ? "exited" : "running"
          )
        }
        // A lookup only stuck could answer: its 503, at once.
        const unknown = yield* promptly(Effect.flip(docker.stats("nope")), "the lookup of an unknown container")
        const error = Exit.isSuccess(unknown) ? unknown.value : undefined
        assert.instanceOf(error, DockerHostUnreachable)
        assert.strictEqual(error.message, stuckIssue)

        // A labelled container started on local is in the next read, which does not wait for stuck either.
        yield* engine.run("late", labelled("late"))
        const later = yield* promptly(docker.routeState, "a route read after late started")
        assert.deepStrictEqual(Exit.isSuccess(later) ? later.value.routes.map((r) => r.route.alias).sort() : later, [
          "late",
          "web"
        ])
        assert.deepStrictEqual(
          Exit.isSuccess(later) ? later.value.issues.map((i) => i.message) : later,
          [stuckIssue],
          "the same problem, word for word"
        )
        // What went to stuck was its listing and the probe's pings, each given up (and its connection closed) at its
        // timeout: at most the ping in flight is open.
        yield* waitFor(
          Effect.sync(() => {
            // Read what was sent (the test server never reads, so it would not see a connection closed).
            for (const socket of silent.sockets) socket.resume()
            return silent.sockets.size
          }),
          (open) => open <= 1,
          "the given-up connections to stuck to close"
        )
      }).pipe(Effect.scoped)
  )

  it.live(
    "the server starts without waiting a call's timeout; a labelled container's route and actions are prompt",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* startDockerd
          const silent = yield* silentServer
          const startedAt = Date.now()
          const server = yield* startTestServer({
            configYaml: [
              "docker:",
              "  hosts:",
              `    - { name: local, url: "unix://${engine.socket}" }`,
              `    - { name: stuck, url: "tcp://127.0.0.1:${silent.port}" }`,
              ""
            ].join("\n")
          })
          assert.isBelow(Date.now() - startedAt, engineCallTimeoutMs - 5_000, "the start waited a call's timeout")
          const key = server.apiKey
          const url = (p: string) => `${server.baseUrl}${p}`
          yield* engine.run("web", labelled("web"))
          // Within a second of its start event (README): well before any 30 s re-read or timeout.
          yield* waitFor(
            request(url("/route/list"), { key }),
            (r) => r.json.some((route: { alias: string }) => route.alias === "web"),
            "the route of the container started on local",
            5_000
          )
          for (const action of ["stop", "start", "restart"]) {
            const before = Date.now()
            const reply = yield* request(url(`/docker/containers/web/${action}`), { key, method: "POST" })
            assert.strictEqual(reply.status, 200, reply.text)
            assert.isBelow(Date.now() - before, engineListTimeoutMs, `${action} waited on stuck`)
          }
        })
      )
  )
})
