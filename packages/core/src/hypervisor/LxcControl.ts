import type { LxcAction, LxcActionResult } from "@gatehouse-edge/contract/domain"
import {
  ProxmoxFailed,
  ProxmoxTaskFailed,
  ProxmoxTaskIneffective,
  ProxmoxTimedOut
} from "@gatehouse-edge/contract/domain"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { PveClient, PveError } from "./PveClient.js"
import { PveLxcStatus, PveTaskStatus, PveUpid } from "./PveSchemas.js"
import { isHaTask, taskWarnings, warningsNote } from "./TaskOutcome.js"
import { isTransientFailure } from "./TransientFailure.js"

/** Timing of power actions. */
export interface LxcControlOptions {
  /** The whole action, including waiting for the task and confirming the status (SPEC: 2 min). */
  readonly timeoutMs: number
  /** How long a graceful shutdown (and a reboot) may take inside the container before it is stopped. */
  readonly shutdownTimeoutS: number
  /** How often a running task's status is read. */
  readonly pollIntervalMs: number
  /**
   * How long a container may take to show the action's state once its task ended OK, before the action fails: a task
   * that did its work leaves the container there at once or nearly (a container whose init exits at once does not
   * get there at all). An HA-managed container's task only asks the HA manager, so it is given the shutdown timeout.
   */
  readonly settleMs: number
}

/** What a power action did: the caller's answer, and the warnings its task logged (0 when none, or no task ran). */
export interface LxcActionOutcome {
  readonly result: LxcActionResult
  readonly warnings: number
}

/** A task that ended well: its UPID and the warnings it logged. */
interface TaskDone {
  readonly upid: string
  readonly warnings: number
}

const target: Record<LxcAction, string> = { start: "running", stop: "stopped", restart: "running" }

/** Proxmox's synchronous refusal of a power action (a 500 with this text, e.g. `CT 101 already running`). */
const refusedAs =
  (state: "already running" | "not running") =>
  (error: PveError | ProxmoxTaskFailed | ProxmoxTaskIneffective): boolean =>
    error instanceof ProxmoxFailed && error.status === 500 && error.detail.endsWith(` ${state}`)

/**
 * Runs one power action on a container (SPEC §5.5) and answers once Proxmox's task succeeded (`OK`, or
 * `WARNINGS: <n>`, counted in the message and the outcome) and the container is in the target state. Already there:
 * no task, `container already running|stopped`. Stop is a graceful `shutdown` with a timeout, then `stop` if the
 * container still runs. Restart of a stopped container starts it. The overall deadline gives `ProxmoxTimedOut` (504);
 * a task that fails gives `ProxmoxTaskFailed` (502) with its exit status; a task that succeeded while the container
 * does not reach the state within `settleMs` gives `ProxmoxTaskIneffective` (502) with the status it has.
 */
export const runLxcAction = (
  client: PveClient,
  node: string,
  vmid: number,
  action: LxcAction,
  options: LxcControlOptions
): Effect.Effect<LxcActionOutcome, PveError | ProxmoxTaskFailed | ProxmoxTaskIneffective> => {
  const base = `/nodes/${encodeURIComponent(node)}/lxc/${vmid}`
  const every = Schedule.spaced(Duration.millis(options.pollIntervalMs))
  const status = Effect.map(client.get(`${base}/status/current`, PveLxcStatus), (s) => s.status)

  // Reads `read` every poll interval until `done`. A read that fails for a transient reason (`isTransientFailure`) is
  // read again at the next interval: one 500 from pveproxy or one dropped connection says nothing about the task, so
  // only the action's overall deadline, or a failure that will not pass, ends the wait.
  const pollUntil = <A>(read: Effect.Effect<A, PveError>, done: (a: A) => boolean) =>
    read.pipe(
      Effect.retry({ schedule: every, while: isTransientFailure }),
      Effect.repeat({ schedule: every, until: done })
    )

  const waitForTask = (upid: string): Effect.Effect<TaskDone, PveError | ProxmoxTaskFailed> =>
    pollUntil(
      client.get(`/nodes/${encodeURIComponent(node)}/tasks/${encodeURIComponent(upid)}/status`, PveTaskStatus),
      (task) => task.status === "stopped"
    ).pipe(
      Effect.flatMap((task) => {
        const warnings = taskWarnings(task.exitstatus)
        return warnings === undefined
          ? Effect.fail(
              new ProxmoxTaskFailed({ cluster: client.cluster, upid, exitstatus: task.exitstatus ?? "unknown" })
            )
          : Effect.succeed({ upid, warnings })
      })
    )

  // A task can end a moment before the status the cluster reports follows it.
  const confirm = (wanted: string) => pollUntil(status, (s) => s === wanted)

  // The state the task should have left the container in, within the time it may take to show. Past it the task did
  // not have its effect, whatever it said, and waiting out the whole deadline would only turn that into a 504 that
  // says nothing about why. Until a status was read at all (the reads fail transiently) the deadline still applies.
  const settled = (done: TaskDone, wanted: string) =>
    Effect.gen(function* () {
      let last: string | undefined
      const seen = Effect.tap(status, (s) =>
        Effect.sync(() => {
          last = s
        })
      )
      const bound = isHaTask(done.upid) ? Duration.seconds(options.shutdownTimeoutS) : Duration.millis(options.settleMs)
      const reached = yield* pollUntil(seen, (s) => s === wanted).pipe(Effect.timeoutOption(bound))
      if (Option.isSome(reached)) return reached.value
      if (last === undefined) return yield* confirm(wanted)
      return yield* new ProxmoxTaskIneffective({ cluster: client.cluster, upid: done.upid, vmid, status: last })
    })

  const task = (endpoint: string, form?: Record<string, string>) =>
    Effect.flatMap(client.post(`${base}/status/${endpoint}`, PveUpid, form), waitForTask)

  const already = (state: string): LxcActionOutcome => ({
    result: { message: `container already ${state}`, status: state },
    warnings: 0
  })

  // The task an action ran, and whether it was a start (a restart of a container found stopped is one).
  type Done = { readonly task: TaskDone; readonly started: boolean }
  const ran =
    (started: boolean) =>
    (task: TaskDone): Done => ({ task, started })

  const stop = Effect.gen(function* () {
    const shutdown = yield* Effect.result(task("shutdown", { timeout: String(options.shutdownTimeoutS) }))
    // Not a failed shutdown but an unanswered request (the API unreachable): no reason to force anything.
    if (shutdown._tag === "Failure" && !(shutdown.failure instanceof ProxmoxTaskFailed)) {
      return yield* Effect.fail(shutdown.failure)
    }
    if (shutdown._tag === "Success") {
      // An HA-managed container's shutdown task (`hastop`) only asks the HA manager, and ends OK while the
      // container still runs: it gets the shutdown timeout to stop before it is stopped by force.
      const stopped = yield* confirm("stopped").pipe(
        Effect.timeoutOption(Duration.seconds(options.shutdownTimeoutS)),
        Effect.map(Option.isSome)
      )
      if (stopped) return shutdown.success
    }
    // The container did not shut down in time (or its shutdown task failed): stop it.
    return yield* task("stop")
  })

  // A container that stopped between the status read and the reboot is refused (`VM <id> not running`): a restart
  // of a stopped container starts it.
  const restart = task("reboot", { timeout: String(options.shutdownTimeoutS) }).pipe(
    Effect.map(ran(false)),
    Effect.catchIf(refusedAs("not running"), () => Effect.map(task("start"), ran(true)))
  )

  const perform = Effect.gen(function* () {
    const current = yield* status
    const wanted = target[action]
    if (action !== "restart" && current === wanted) return already(wanted)
    const done: Done | undefined = yield* (
      action === "stop"
        ? Effect.map(stop, ran(false))
        : action === "start" || current !== "running"
          ? Effect.map(task("start"), ran(true))
          : restart
    ).pipe(
      // Proxmox refuses an action whose result is already there (a concurrent action got there first): a start of
      // a running container, a shutdown or stop of a stopped one. Only that refusal, for this action, is success.
      Effect.catchIf(refusedAs(action === "stop" ? "not running" : "already running"), () => Effect.succeed(undefined))
    )
    // Proxmox's refusal is its word that the container is there already: nothing ran, nothing to wait for.
    if (done === undefined) return already(wanted)
    const final = yield* settled(done.task, wanted)
    const what = action === "stop" ? "stopped" : action === "restart" && !done.started ? "restarted" : "started"
    const notes = [
      action === "restart" && done.started ? "it was not running" : undefined,
      warningsNote(done.task.warnings)
    ].filter((note) => note !== undefined)
    const message = `container ${what}${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`
    return { result: { message, status: final, task: done.task.upid }, warnings: done.task.warnings }
  })

  return perform.pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(options.timeoutMs),
      orElse: () =>
        Effect.fail(
          new ProxmoxTimedOut({
            cluster: client.cluster,
            operation: `${action} of CT ${vmid}`,
            timeout_ms: options.timeoutMs
          })
        )
    }),
    Effect.withSpan("Hypervisor.lxc", { attributes: { cluster: client.cluster, node, vmid, action } })
  )
}
