import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type ReconnectOptions, type Resumption, reconnectSchedule, resetAfterOf } from "./Reconnect.js"

/** What {@link reconnecting} needs to know of a stream. */
export interface Reconnectable<A, E> {
  /**
   * Opens one connection, given the last frame delivered (none yet: `undefined`) and whether an earlier connection
   * was open (a reconnect): succeeds once it is open, with its frames; the connection is closed with the scope.
   * Frames are compared with `===` (raw text frames).
   */
  readonly connect: (last: A | undefined, reconnected: boolean) => Effect.Effect<Stream.Stream<A, E>, E, Scope.Scope>
  /** Whether a connection that failed with this error may work when opened again. */
  readonly retryable: (error: E) => boolean
  readonly resumption: Resumption
  readonly options: ReconnectOptions<E>
}

// Runs a notice callback, which may return an Effect (the Effect client's) or nothing (a Promise user's).
const notify = <N>(callback: ((notice: N) => Effect.Effect<void> | void) | undefined, notice: N) =>
  callback === undefined
    ? Effect.void
    : Effect.suspend(() => {
        const result = callback(notice)
        return Effect.isEffect(result) ? result : Effect.void
      })

/**
 * A stream over connections opened one after another: when one fails with a retryable error, the next is opened
 * after the schedule's delay and the stream goes on from it (see {@link Resumption}); when one ends normally, so
 * does the stream; any other failure, or the attempts running out, fails it with the error. A stream that never
 * connected fails with its first error: there is nothing to reconnect to, and a wrong address must show at once.
 *
 * The connections are a flat sequence (each pulled once the one before is over), not nested retries, so a watch
 * that reconnects for months costs no more per frame than on its first day.
 */
export const reconnecting = <A, E>(stream: Reconnectable<A, E>): Stream.Stream<A, E> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const { options } = stream
      const schedule = reconnectSchedule(options)
      const resetAfterMs = Duration.toMillis(resetAfterOf(options))
      let step = yield* Schedule.toStep(schedule)
      let last: A | undefined
      let everConnected = false
      // When the current (or last) connection opened; undefined while none is open.
      let openedAt: number | undefined
      let attempt = 0
      let outcome: { readonly _tag: "Pending" } | { readonly _tag: "Ended" } | { readonly _tag: "Failed"; error: E } = {
        _tag: "Pending"
      }

      const opened = Effect.gen(function* () {
        const frames = yield* stream.connect(last, everConnected)
        openedAt = yield* Clock.currentTimeMillis
        if (everConnected) yield* notify(options.onReconnect, { attempt, resumption: stream.resumption })
        everConnected = true
        // A snapshot stream's first frame after a reconnect is the state again: the same one is not delivered twice.
        const repeated = stream.resumption === "snapshot" ? last : undefined
        let first = true
        return frames.pipe(
          Stream.filter((frame) => {
            const skip = first && repeated !== undefined && frame === repeated
            first = false
            return !skip
          }),
          Stream.tap((frame) =>
            Effect.sync(() => {
              last = frame
            })
          )
        )
      })

      // One connection, from opening to its end: its failure is kept for `next` to judge, not raised here.
      const connection = Stream.unwrap(opened).pipe(
        Stream.concat(
          Stream.fromEffectDrain(
            Effect.sync(() => {
              outcome = { _tag: "Ended" }
            })
          )
        ),
        Stream.catch((error: E) =>
          Stream.fromEffectDrain(
            Effect.sync(() => {
              outcome = { _tag: "Failed", error }
            })
          )
        )
      )

      const next: Effect.Effect<Stream.Stream<A>, E | Cause.Done> = Effect.gen(function* () {
        const ended = outcome
        outcome = { _tag: "Pending" }
        if (ended._tag === "Pending") return connection
        if (ended._tag === "Ended") return yield* Cause.done()
        const error = ended.error
        if (!everConnected || !stream.retryable(error)) return yield* Effect.fail(error)
        const now = yield* Clock.currentTimeMillis
        if (openedAt !== undefined && now - openedAt >= resetAfterMs) {
          step = yield* Schedule.toStep(schedule)
          attempt = 0
        }
        openedAt = undefined
        const [, delay] = yield* step(now, undefined).pipe(Pull.catchDone(() => Effect.fail(error)))
        attempt++
        yield* notify(options.onDisconnect, { error, attempt, delay })
        yield* Effect.sleep(delay)
        return connection
      })

      return Stream.flatten(Stream.fromEffectRepeat(next))
    })
  )
