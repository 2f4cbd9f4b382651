import type { LxcAction, LxcActionResult } from "@gatehouse-edge/contract/domain"
import { ProxmoxFailed, ProxmoxTaskFailed, ProxmoxTimedOut } from "@gatehouse-edge/contract/domain"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { PveClient, PveError } from "./PveClient.js"
import { PveLxcStatus, PveTaskStatus, PveUpid } from "./PveSchemas.js"

/** Timing of power actions. */
export interface LxcControlOptions {
  /** The whole action, including waiting for the task and confirming the status (SPEC: 2 min). */
  readonly timeoutMs: number
  /** How long a graceful shutdown (and a reboot) may take inside the container before it is stopped. */
  readonly shutdownTimeoutS: number
  /** How often a running task's status is read. */
  readonly pollIntervalMs: number
}

const target: Record<LxcAction, string> = { start: "running", stop: "stopped", restart: "running" }

/**
 * Runs one power action on a container (SPEC §5.5) and answers once Proxmox's task finished with `OK` and the
 * container is in the target state. Already there: no task, `container already running|stopped`. Stop is a
 * graceful `shutdown` with a timeout, then `stop` if the container still runs. Restart of a stopped container
 * starts it. The overall deadline gives `ProxmoxTimedOut` (504); a task that ends otherwise than `OK` gives
 * `ProxmoxTaskFailed` (502) with its exit status.
 */
export const runLxcAction = (
  client: PveClient,
  node: string,
  vmid: number,
  action: LxcAction,
  options: LxcControlOptions
): Effect.Effect<LxcActionResult, PveError | ProxmoxTaskFailed> => {
  const base = `/nodes/${encodeURIComponent(node)}/lxc/${vmid}`
  const status = Effect.map(client.get(`${base}/status/current`, PveLxcStatus), (s) => s.status)

  const waitForTask = (upid: string) =>
    client.get(`/nodes/${encodeURIComponent(node)}/tasks/${encodeURIComponent(upid)}/status`, PveTaskStatus).pipe(
      Effect.repeat({
        schedule: Schedule.spaced(Duration.millis(options.pollIntervalMs)),
        until: (task) => task.status === "stopped"
      }),
      Effect.flatMap((task) =>
        task.exitstatus === "OK"
          ? Effect.succeed(upid)
          : Effect.fail(
              new ProxmoxTaskFailed({ cluster: client.cluster, upid, exitstatus: task.exitstatus ?? "unknown" })
            )
      )
    )

  // A task can end a moment before the status the cluster reports follows it.
  const confirm = (wanted: string) =>
    status.pipe(
      Effect.repeat({ schedule: Schedule.spaced(Duration.millis(options.pollIntervalMs)), until: (s) => s === wanted })
    )

  // Proxmox refuses a start of a running container (and a stop of a stopped one) with a 500 and this text; a
  // concurrent action got there first, so the container is in the wanted state.
  const alreadyThere = (error: PveError | ProxmoxTaskFailed): boolean =>
    error instanceof ProxmoxFailed && / (already running|not running)$/.test(error.detail)

  const task = (endpoint: string, form?: Record<string, string>) =>
    Effect.flatMap(client.post(`${base}/status/${endpoint}`, PveUpid, form), waitForTask)

  const already = (state: string): LxcActionResult => ({ message: `container already ${state}`, status: state })

  const perform = Effect.gen(function* () {
    const current = yield* status
    const wanted = target[action]
    if (action !== "restart" && current === wanted) return already(wanted)
    const upid = yield* Effect.gen(function* () {
      if (action === "start" || (action === "restart" && current !== "running")) return yield* task("start")
      if (action === "restart") return yield* task("reboot", { timeout: String(options.shutdownTimeoutS) })
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
    }).pipe(Effect.catchIf(alreadyThere, () => Effect.succeed(undefined)))
    const final = yield* confirm(wanted)
    if (upid === undefined) return already(final)
    const message =
      action === "restart"
        ? current === "running"
          ? "container restarted"
          : "container started (it was not running)"
        : action === "start"
          ? "container started"
          : "container stopped"
    return { message, status: final, task: upid }
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
