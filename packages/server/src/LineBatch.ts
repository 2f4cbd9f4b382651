import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"

/**
 * A logger that collects what `self` makes of each log and hands it to `flush` in one batch, `window` after the
 * first of them. Effect's `Logger.batched` does the same on a timer that fires every window for the life of the
 * server, lines or not: 20 wake-ups a second of an idle process, which then used 1.8% of a core with no routes
 * instead of 0.7% (bench/README.md, "Idle cost"). Here the timer runs only while a line waits. What still waits
 * when the scope closes is flushed then.
 */
export const batchLines = <Message, Output>(
  self: Logger.Logger<Message, Output>,
  options: {
    readonly window: Duration.Input
    readonly flush: (outputs: Array<Output>) => Effect.Effect<void>
  }
): Effect.Effect<Logger.Logger<Message, void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    let waiting: Array<Output> = []
    // Open exactly while `waiting` holds something: the flusher sleeps on it, not on a timer.
    const pending = Latch.makeUnsafe(false)
    const flush = Effect.uninterruptible(
      Effect.suspend(() => {
        pending.closeUnsafe()
        if (waiting.length === 0) return Effect.void
        const outputs = waiting
        waiting = []
        return options.flush(outputs)
      })
    )
    const flusher = yield* pending.await.pipe(
      Effect.andThen(Effect.sleep(options.window)),
      Effect.andThen(flush),
      Effect.forever,
      // Detached, like effect's own: logging must keep working until the finalizer below, whatever closes first.
      Effect.forkDetach
    )
    // A flush in progress finishes (it is uninterruptible) before the rest is written.
    yield* Effect.addFinalizer(() => Effect.andThen(Fiber.interrupt(flusher), flush))
    return Logger.make((log) => {
      waiting.push(self.log(log))
      if (waiting.length === 1) pending.openUnsafe()
    })
  })
