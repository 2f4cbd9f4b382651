import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"

/**
 * How a stream picks up again after a reconnect: `exact` resumes after the last value delivered (events, by id);
 * `snapshot` subscribes again and the first frame is the current state (a frame identical to the last one delivered
 * is skipped); `tail` subscribes again to a log tail, whose last lines come again: lines already delivered may repeat,
 * and lines written while disconnected beyond those are missed.
 */
export type Resumption = "exact" | "snapshot" | "tail"

/** The connection was lost and another will be tried after `delay`. */
export interface Disconnected<E = unknown> {
  /** Why: `WebSocketClosed` (1001, 1006, 1011...), a `TransportError` (refused, timed out), a 5xx refusal. */
  readonly error: E
  /** The attempt about to be made, from 1; back to 1 after a connection stayed up for `resetAfter`. */
  readonly attempt: number
  /** How long the stream waits before that attempt (full jitter: anywhere from 0 to the backoff's cap). */
  readonly delay: Duration.Duration
}

/** A new connection is open; the stream goes on from it. */
export interface Reconnected {
  /** The attempt that succeeded. */
  readonly attempt: number
  readonly resumption: Resumption
}

/**
 * Reconnection of a stream whose connection failed or closed abnormally (1001, 1006, 1011, 1012, 1013, a 5xx or
 * 429 refusal, no connection, the silence timeout, a 1008 close for a consumer too slow). Refusals a retry cannot
 * fix (401, 403, 404, 410, validation, another 1008 close) and a normal end are never retried; nor is a stream that never connected (a wrong address or key
 * shows at once). The delay before attempt n is random between 0 and min(`maxDelay`, `initialDelay` × 2^(n-1)).
 */
export interface ReconnectOptions<E = unknown> {
  /** The cap of the first delay, doubled per attempt (default 500 ms). */
  readonly initialDelay?: Duration.Input | undefined
  /** The largest delay cap (default 30 s). */
  readonly maxDelay?: Duration.Input | undefined
  /** Attempts in a row before the stream fails with the last error (default: no limit). */
  readonly maxAttempts?: number | undefined
  /** A connection that stayed up this long starts the backoff over from `initialDelay` (default 30 s). */
  readonly resetAfter?: Duration.Input | undefined
  /** Called when a connection is lost and will be retried; a returned Effect is run before the delay. */
  readonly onDisconnect?: ((notice: Disconnected<E>) => Effect.Effect<void> | void) | undefined
  /** Called when a reconnect succeeded, before its first frame; a returned Effect is run. */
  readonly onReconnect?: ((notice: Reconnected) => Effect.Effect<void> | void) | undefined
}

/** Options of a stream call. */
export interface WatchOptions<E = unknown> {
  /** Reconnect when the connection is lost (`true`: with the defaults); off by default, the stream then fails. */
  readonly reconnect?: boolean | ReconnectOptions<E> | undefined
}

/** The reconnect options a stream call asked for, or `undefined` for none. */
export const reconnectOptionsOf = <E>(options: WatchOptions<E> | undefined): ReconnectOptions<E> | undefined => {
  const reconnect = options?.reconnect
  if (reconnect === undefined || reconnect === false) return undefined
  return reconnect === true ? {} : reconnect
}

/** How long a connection must stay up before the backoff starts over. */
export const resetAfterOf = (options: ReconnectOptions<never>): Duration.Duration =>
  Duration.fromInputUnsafe(options.resetAfter ?? "30 seconds")

/**
 * The delays between reconnect attempts: exponential from `initialDelay`, capped at `maxDelay`, each drawn at random
 * below its cap ("full jitter": clients that lost the same server spread out instead of returning all at once), and
 * done after `maxAttempts` when there is such a limit. Stepped once per failed connection; the output is the cap,
 * the step's delay the drawn one.
 */
export const reconnectSchedule = (options: ReconnectOptions<never> = {}): Schedule.Schedule<Duration.Duration> => {
  const capped = Schedule.min([
    Schedule.exponential(options.initialDelay ?? "500 millis"),
    Schedule.spaced(options.maxDelay ?? "30 seconds")
  ])
  const jittered = Schedule.modifyDelay(capped, ({ duration }) =>
    Effect.map(Random.next, (random) => Duration.millis(Math.floor(Duration.toMillis(duration) * random)))
  )
  return options.maxAttempts === undefined ? jittered : Schedule.upTo(jittered, { times: options.maxAttempts })
}
