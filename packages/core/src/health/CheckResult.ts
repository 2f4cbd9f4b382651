import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/**
 * The outcome of one health check. `error` means the check itself could not run (misconfigured route, a bug in
 * the monitor), as opposed to `unhealthy`, which means the target answered badly or not at all.
 */
export interface CheckResult {
  /**
   * `starting` and `napping` come only from what a container's engine says: its HEALTHCHECK still in its start
   * period, or a stopped container that an idlewatcher wakes on demand.
   */
  readonly status: "healthy" | "unhealthy" | "error" | "starting" | "napping"
  /** Time the check took until its verdict, in milliseconds; 0 when nothing measurable came back (silent UDP). */
  readonly latency_ms: number
  /** Why the check did not pass. */
  readonly error?: string
}

/** What a probe saw, before it is timed. */
export type ProbeOutcome =
  | { readonly _tag: "Up" }
  | { readonly _tag: "Down"; readonly error: string }
  | { readonly _tag: "Error"; readonly error: string }

/** The target answered acceptably. */
export const up: ProbeOutcome = { _tag: "Up" }
/** The target answered badly or could not be reached. */
export const down = (error: string): ProbeOutcome => ({ _tag: "Down", error })
/** The check could not run at all. */
export const misconfigured = (error: string): ProbeOutcome => ({ _tag: "Error", error })

/** Rounds to hundredths of a millisecond: loopback checks take well under 1 ms, whole milliseconds would read 0. */
const toMillis = (nanos: bigint): number => Math.round(Number(nanos) / 10_000) / 100

const toResult = (outcome: ProbeOutcome, latency_ms: number): CheckResult => {
  switch (outcome._tag) {
    case "Up":
      return { status: "healthy", latency_ms }
    case "Down":
      return { status: "unhealthy", latency_ms, error: outcome.error }
    case "Error":
      return { status: "error", latency_ms, error: outcome.error }
  }
}

/**
 * Runs `probe` under a deadline of `timeoutMs` and times it with the `Clock`. On timeout the probe is interrupted
 * (its finalizer destroys the socket) and `onTimeout` decides the verdict: unhealthy for every connection-oriented
 * check, healthy for UDP where silence is the normal answer.
 */
export const measure = (
  probe: Effect.Effect<ProbeOutcome>,
  timeoutMs: number,
  onTimeout: "unhealthy" | "healthy" = "unhealthy"
): Effect.Effect<CheckResult> =>
  Effect.gen(function* () {
    const start = yield* Clock.monotonicTimeNanos
    const outcome = yield* probe.pipe(
      Effect.timeoutOption(timeoutMs),
      Effect.map((o) => (o._tag === "Some" ? o.value : undefined))
    )
    if (outcome === undefined) {
      return onTimeout === "healthy"
        ? { status: "healthy", latency_ms: 0 }
        : { status: "unhealthy", latency_ms: timeoutMs, error: `no answer within ${timeoutMs} ms` }
    }
    const end = yield* Clock.monotonicTimeNanos
    return toResult(outcome, toMillis(end - start))
  })
