import * as Effect from "effect/Effect"

// Set once the command follows a stream that only Ctrl-C ends (a journal, logs -f, --watch). Read by the
// teardown in Main.ts: for such a command Ctrl-C is how it ends, and it exits 0, as `journalctl -f` does; any
// other command stopped by Ctrl-C did not finish, and exits 130.
let following = false

/** Runs `follow`, a stream printed until it ends or Ctrl-C, whose interruption is then the command's normal end. */
export const untilCtrlC = <A, E, R>(follow: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.andThen(
    Effect.sync(() => {
      following = true
    }),
    follow
  )

/** Whether the command was following a stream (see {@link untilCtrlC}). */
export const endsOnCtrlC = (): boolean => following
