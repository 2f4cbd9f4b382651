import { assert, describe, it } from "@effect/vitest"
import {
  closeCodeOf,
  errorCodeOf,
  type NodeStats,
  ProxmoxAccessDenied,
  ProxmoxUnreachable
} from "@gatehouse-edge/contract/domain"
import { Clock, Effect, Fiber, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { unreachableAfterMs } from "../../packages/core/src/hypervisor/SharedPolls.js"
import { recordingShell } from "../support/RecordingShell.js"
import { buildHypervisor, clusterOf, simulator } from "./HypervisorFixture.js"

// A node's stats stream through failed polls of `/nodes/<node>/status`: what passes skips frames, what lasts or will
// not pass ends the stream.

// A pause on the wall clock: the simulator answers in real time while the test clock stands still.
const pause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/**
 * Advances the test clock a second at a time until `done` holds, with a deadline on the real clock. A poll's next
 * sleep begins only once the simulator's answer is in (real time): an advance made before that moves nothing, and
 * the next one does.
 */
const advanceUntil = (done: () => boolean, what: string, timeoutMs = 20_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (!done()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* TestClock.adjust("1 second")
      yield* pause(20)
    }
  })

const setUp = Effect.gen(function* () {
  const sim = yield* simulator()
  const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer)
  yield* hypervisor.nodes
  const frames = yield* Queue.unbounded<NodeStats>()
  const watcher = yield* hypervisor.watchNodeStats("pve1").pipe(
    Stream.runForEach((frame) => Queue.offer(frames, frame)),
    Effect.forkScoped
  )
  assert.strictEqual((yield* Queue.take(frames)).node, "pve1")
  const statusCalls = () => sim.countRequests("/nodes/pve1/status")
  const framesSeen = () => Queue.sizeUnsafe(frames)
  const ended = () => watcher.pollUnsafe() !== undefined
  return { sim, frames, watcher, statusCalls, framesSeen, ended }
})

describe("a node's stats stream through failed polls", () => {
  it.effect("a 5xx, the node briefly cut off (596), a poll that times out: frames are skipped, then resume", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { sim, frames, statusCalls, framesSeen, ended } = yield* setUp
        // The newest fault applies first: a 503 from pveproxy, then the node cut off from the cluster for a poll.
        sim.fault({ match: "/nodes/pve1/status", status: 596, reason: "Connection reset by peer", once: true })
        sim.fault({ match: "/nodes/pve1/status", status: 503, reason: "service unavailable", once: true })
        yield* advanceUntil(() => statusCalls() >= 3, "two failed polls")
        // Then one that gets no answer: the client gives up after its 10 s request timeout.
        sim.hang("/nodes/pve1/status")
        yield* advanceUntil(() => statusCalls() >= 4, "a poll left unanswered")
        sim.hang(undefined)
        assert.strictEqual(framesSeen(), 0, "nothing is sent for a failed tick")
        assert.isFalse(ended(), "the stream is still open")
        yield* advanceUntil(() => framesSeen() > 0, "a frame after the failures")
        assert.strictEqual((yield* Queue.take(frames)).node, "pve1")
        assert.isFalse(ended())
      })
    )
  )

  it.effect(
    `a node unreachable for ${unreachableAfterMs / 1000} s ends the stream (1011), the error naming the node`,
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { sim, watcher, statusCalls, framesSeen, ended } = yield* setUp
          const before = statusCalls()
          sim.setNode("pve1", { status: "offline" })
          yield* advanceUntil(() => statusCalls() > before, "the first failed poll")
          const failingSince = yield* Clock.currentTimeMillis
          yield* advanceUntil(ended, "the end of the stream")
          const lasted = (yield* Clock.currentTimeMillis) - failingSince
          assert.isAtLeast(lasted, unreachableAfterMs - 1000, "not before the failures have lasted the window")
          assert.isAtMost(lasted, unreachableAfterMs + 2000)
          assert.strictEqual(framesSeen(), 0)
          const error = yield* Effect.flip(Fiber.join(watcher))
          assert.instanceOf(error, ProxmoxUnreachable)
          assert.strictEqual(
            error.message,
            'Proxmox VE node "pve1" of cluster "sim" is unreachable: offline or cut off from the rest of the cluster ' +
              "(595: No route to host)"
          )
          assert.strictEqual(closeCodeOf(errorCodeOf(error)), 1011)
        })
      )
  )

  it.effect("a failure that will not pass (a privilege revoked: 403) ends the stream at the first poll", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { sim, watcher, statusCalls, ended } = yield* setUp
        const before = statusCalls()
        sim.fault({
          match: "/nodes/pve1/status",
          status: 403,
          reason: "Permission check failed (/nodes/pve1, Sys.Audit)"
        })
        yield* advanceUntil(ended, "the end of the stream")
        assert.strictEqual(statusCalls(), before + 1, "no poll after it")
        assert.instanceOf(yield* Effect.flip(Fiber.join(watcher)), ProxmoxAccessDenied)
      })
    )
  )
})
