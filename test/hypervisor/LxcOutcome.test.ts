import { assert, describe, it } from "@effect/vitest"
import {
  errorCodeOf,
  httpStatusOf,
  ProxmoxCertificateMismatch,
  ProxmoxTaskIneffective
} from "@gatehouse-edge/contract/domain"
import { Effect, Fiber } from "effect"
import { MemoryBackend } from "../pve-sim/GuestBackend.js"
import { type PveSim, startPveSimulator } from "../pve-sim/PveSimulator.js"
import { defaultGuests } from "../pve-sim/SimState.js"
import { recordingShell } from "../support/RecordingShell.js"
import { buildHypervisor, clusterOf, simulator } from "./HypervisorFixture.js"

// How a power action reads the end of Proxmox's task: success with warnings, success without effect, and a server
// that stopped being the pinned one while the action waited.

// Polls with a deadline on the real clock (the simulator answers in real time).
const eventually = <A>(check: () => A | undefined, what: string, timeoutMs = 5000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const value = check()
      if (value !== undefined) return value
      yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 10)))
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

const powerRequests = (sim: PveSim, vmid: number) =>
  sim.requests
    .filter((r) => r.method === "POST" && r.path.includes(`/lxc/${vmid}/status/`))
    .map((r) => r.path.replace(/^.*\/status\//, ""))

/** A container whose init exits at once: its start task ends OK, and it is stopped again right away. */
class ExitsAtOnce extends MemoryBackend {
  override readonly start = async (vmid: number): Promise<void> => this.set(vmid, "stopped")
}

describe("LXC actions: how a task's end is read", () => {
  it.live("a task that ends WARNINGS: <n> succeeded: 200 with its task, the warnings counted, the lxc_* event", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor, events } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20 }
        })
        sim.warnNextTask(102, 1)
        const started = yield* hypervisor.lxc("pve1", 102, "start", "alice")
        assert.deepInclude(started, { message: "container started (1 warning)", status: "running" })
        assert.match(started.task ?? "", /:vzstart:102:/)
        assert.strictEqual(
          (yield* hypervisor.guestStatsLine("pve1", 102)).split("|")[0],
          "running",
          "the cache has the status Proxmox confirmed"
        )
        // A shutdown with warnings stopped the container: no `stop` after it.
        sim.warnNextTask(102, 2)
        const stopped = yield* hypervisor.lxc("pve1", 102, "stop", "alice")
        assert.deepInclude(stopped, { message: "container stopped (2 warnings)", status: "stopped" })
        assert.match(stopped.task ?? "", /:vzshutdown:102:/)
        assert.deepStrictEqual(powerRequests(sim, 102), ["start", "shutdown"])
        const history = yield* events.history({ category: "hypervisor" })
        const lxcEvents = history.filter((e) => e.action.startsWith("lxc_"))
        assert.deepStrictEqual(
          lxcEvents.map((e) => e.action),
          ["lxc_start", "lxc_stop"]
        )
        // The warnings are in the event history too, not only in the answer to whoever asked.
        assert.deepInclude(lxcEvents[0]?.data as object, {
          vmid: 102,
          status: "running",
          task: started.task,
          warnings: 1
        })
        assert.deepInclude(lxcEvents[1]?.data as object, { status: "stopped", task: stopped.task, warnings: 2 })
        // A task that ended OK logged none: the event says nothing of warnings.
        const clean = yield* hypervisor.lxc("pve1", 102, "start", "alice")
        assert.strictEqual(clean.message, "container started")
        const last = (yield* events.history({ category: "hypervisor" })).findLast((e) => e.action === "lxc_start")
        assert.deepInclude(last?.data as object, { status: "running", task: clean.task })
        assert.notProperty(last?.data, "warnings")
      })
    )
  )

  it.live("a task that ends OK while the container does not get there: 502 naming its status, not the deadline", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator({ backend: new ExitsAtOnce() })
        const { hypervisor, events } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20, settleMs: 300, timeoutMs: 20_000 }
        })
        const began = Date.now()
        const error = yield* Effect.flip(hypervisor.lxc("pve1", 102, "start", "alice"))
        const tookMs = Date.now() - began
        assert.instanceOf(error, ProxmoxTaskIneffective)
        assert.strictEqual(error.status, "stopped")
        assert.match(error.upid, /:vzstart:102:/)
        assert.strictEqual(error.message, `Proxmox VE task ${error.upid} ended OK but container 102 is stopped`)
        assert.strictEqual(httpStatusOf(errorCodeOf(error)), 502)
        assert.isBelow(tookMs, 5000, "answered after the settle time, far from the 20 s deadline")
        const failed = (yield* events.history({ category: "hypervisor" })).filter((e) => e.action === "lxc_failed")
        assert.deepInclude(failed[0]?.data as object, { vmid: 102, action: "start", error: error.message })
      })
    )
  )

  it.live(
    "an HA-managed container's start (hastart only asks the HA manager) is given longer than the settle time",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          // The HA manager starts it three task durations after the task ended: well past the settle time.
          const sim = yield* simulator({
            taskDurationMs: 200,
            guests: defaultGuests.map((guest) => (guest.vmid === 102 ? { ...guest, ha: { state: "started" } } : guest))
          })
          const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
            lxc: { pollIntervalMs: 20, settleMs: 100, shutdownTimeoutS: 10 }
          })
          const started = yield* hypervisor.lxc("pve1", 102, "start", "alice")
          assert.deepInclude(started, { message: "container started", status: "running" })
          assert.match(started.task ?? "", /:hastart:102:/)
        })
      )
  )

  it.live("a certificate that stops matching the pin while a task runs ends the action at once with a 502", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator({ taskDurationMs: 2000 })
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20, timeoutMs: 20_000 }
        })
        yield* hypervisor.guests
        const starting = yield* Effect.forkChild(hypervisor.lxc("pve1", 102, "start", "alice"))
        yield* eventually(() => (powerRequests(sim, 102).length > 0 ? true : undefined), "the start task")
        // Another server (a fresh certificate) answers on the same address from now on.
        yield* Effect.promise(() => sim.close())
        const impostor = yield* Effect.acquireRelease(
          Effect.promise(() => startPveSimulator({ port: sim.port })),
          (other) => Effect.promise(() => other.close())
        )
        const began = Date.now()
        const error = yield* Effect.flip(Fiber.join(starting))
        assert.instanceOf(error, ProxmoxCertificateMismatch)
        assert.strictEqual(error.presented, impostor.fingerprint)
        assert.strictEqual(error.expected, sim.fingerprint)
        assert.include(error.message, `${impostor.fingerprint}, does not match tls.fingerprint`)
        assert.strictEqual(httpStatusOf(errorCodeOf(error)), 502)
        assert.isBelow(Date.now() - began, 5000, "not retried as an outage until the 20 s deadline")
        assert.deepStrictEqual(impostor.requests, [], "nothing was sent to it")
      })
    )
  )
})
