import { DockerHostUnreachable } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import type * as Scope from "effect/Scope"
import { EngineTimeout, unreachableReason } from "./EngineFailure.js"

const backoffInitialMs = 500
const backoffMaxMs = 30_000

/**
 * How long the probe of a down engine waits for its ping: a ping has nothing to wait for, so an engine that does
 * not answer one within this is still down.
 */
export const engineProbeTimeoutMs = 5_000

/** Whether one engine answers, as its calls and, while it is down, one background probe learn it. */
export interface EngineAvailability {
  /** The engine's 503 while it is down (callers then skip it, or fail with it at once); undefined while it answers. */
  readonly down: () => DockerHostUnreachable | undefined
  /** A call had an answer (an error status is one too): the engine is up, its back-off starts over. */
  readonly answered: Effect.Effect<void>
  /** A call had no answer: the engine is down until the probe hears from it. Gives the error callers hear. */
  readonly noAnswer: (error: unknown) => Effect.Effect<DockerHostUnreachable>
  /** Completes once the engine answers (at once while it does): for what waits for an engine rather than failing. */
  readonly whenUp: Effect.Effect<void>
}

// `timed out`, `TLS`, `connection refused`, ...: a listing's 5 s and an action's 30 s are one kind of failure.
const kindOf = (error: DockerHostUnreachable) => error.detail.split(":")[0]

/**
 * Tracks whether the engine `host` answers. An engine that gave no answer is down: every call fails at once with
 * its error (no call waits on it, so one stuck engine holds up nothing on the others), and one probe, forked into
 * `scope`, pings it after a back-off (0.5 s doubling to 30 s) until it answers. The back-off starts over only when
 * a call is answered, not a ping: a daemon whose ping answers while its calls hang is then tried less and less
 * often. A down engine is logged when it goes down, when why changes (the driver's text, with the socket path or
 * address) and when it answers again, not at every retry; callers hear the kind of failure only.
 */
export const makeEngineAvailability = (options: {
  readonly host: string
  /** Asks the engine for an answer (`GET /_ping`), failing only when it gave none; bounded here. */
  readonly ping: Effect.Effect<unknown, unknown>
  /** The driver's own words for a failure, for the log. */
  readonly driverText: (error: unknown) => string
  readonly scope: Scope.Scope
}): EngineAvailability => {
  const { host } = options
  let lastError: DockerHostUnreachable | undefined
  let failures = 0
  let lastLogged: string | undefined
  let probing = false
  const up = Latch.makeUnsafe(true)

  // The state changes at once (the probe's caller relies on no yield between them and its own); what it returns logs
  // the recovery of an engine whose outage was logged, so the log shows when each outage ended.
  const markUp = (): Effect.Effect<void> => {
    const wasLogged = lastLogged !== undefined
    lastError = undefined
    lastLogged = undefined
    up.openUnsafe()
    return wasLogged ? Effect.logInfo(`Docker host "${host}" answers again`) : Effect.void
  }

  const recordFailure = (error: unknown): Effect.Effect<DockerHostUnreachable> =>
    Effect.suspend(() => {
      failures++
      const unreachable = new DockerHostUnreachable({ host, detail: unreachableReason(error) })
      // The same error, word for word, as long as the kind of failure is the same: a route problem an engine makes
      // is compared to avoid announcing it again, and a text that changed with every read was a new problem each.
      if (lastError === undefined || kindOf(lastError) !== kindOf(unreachable)) lastError = unreachable
      up.closeUnsafe()
      const text = options.driverText(error)
      if (text === lastLogged) return Effect.succeed(lastError)
      lastLogged = text
      return Effect.as(Effect.logWarning(`${unreachable.message} (${text})`), lastError)
    })

  const ping = options.ping.pipe(
    Effect.timeoutOrElse({
      duration: engineProbeTimeoutMs,
      orElse: () => Effect.fail(new EngineTimeout({ message: `no answer within ${engineProbeTimeoutMs / 1000} s` }))
    })
  )

  const probe = Effect.gen(function* () {
    for (;;) {
      yield* Effect.sleep(Math.min(backoffMaxMs, backoffInitialMs * 2 ** Math.max(0, failures - 1)))
      // A call was answered meanwhile. Checked and left in one step: a call failing right after must find no probe
      // running, and start one.
      if (lastError === undefined) {
        probing = false
        return
      }
      const pinged = yield* Effect.result(ping)
      if (pinged._tag === "Success") {
        const announce = markUp()
        probing = false
        return yield* announce
      }
      yield* recordFailure(pinged.failure)
    }
  })

  return {
    down: () => lastError,
    answered: Effect.suspend(() => {
      failures = 0
      return markUp()
    }),
    noAnswer: (error) =>
      Effect.flatMap(recordFailure(error), (unreachable) => {
        if (probing) return Effect.succeed(unreachable)
        probing = true
        return Effect.as(Effect.forkIn(probe, options.scope), unreachable)
      }),
    whenUp: up.await
  }
}
