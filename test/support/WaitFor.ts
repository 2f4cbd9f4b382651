import { assert } from "@effect/vitest"
import { Effect } from "effect"

/**
 * Polls `read` until `check` holds, on the wall clock (for real daemons and processes, whatever clock the test runs
 * on), failing the test after `timeoutMs`.
 */
export const waitFor = <A, E>(
  read: Effect.Effect<A, E>,
  check: (a: A) => boolean,
  what: string,
  timeoutMs = 10_000
): Effect.Effect<A, E> =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = yield* read
      if (check(value)) return value
      if (Date.now() > deadline) return assert.fail(`timed out waiting for ${what}`)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
    }
  })
