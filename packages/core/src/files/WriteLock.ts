import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Semaphore from "effect/Semaphore"

/**
 * Runs a file system step of a write and waits for it at most the step timeout, then fails with `onTimeout()`.
 * The step itself is not stopped (a call stuck on a disk or a network mount cannot be taken back): it runs on,
 * and the lock stays held until it has ended.
 */
export type BoundedStep = <A, E, E2>(step: Effect.Effect<A, E>, onTimeout: () => E2) => Effect.Effect<A, E | E2>

/** The lock that orders file writes (see {@link makeWriteLock}). */
export interface WriteLock {
  /**
   * Runs `body` holding the lock, or fails with `onBusy()` once the write holding it has held it for the lock
   * timeout. `body` makes its file system calls through the {@link BoundedStep} it is given.
   */
  readonly withLock: <A, E, R, E2>(
    onBusy: () => E2,
    body: (step: BoundedStep) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | E2, R>
}

/** How long one write may hold the lock before the writes behind it give up, and each of its steps may take. */
export interface WriteLockTimeouts {
  readonly lock: Duration.Input
  readonly step: Duration.Input
}

/**
 * A lock for writes that a stuck file system cannot turn into a queue of hanging requests: each file system step of
 * a write is waited for a bounded time, and once one write has held the lock for the lock timeout, the writes
 * waiting behind it are refused. A queue that moves is waited in however long it is (200 edits sent at once all
 * land), since each write holds the lock briefly. A step that times out keeps the lock until it really ends, so no
 * later write overtakes a rename still in flight. Steps run in the scope of the lock's maker (the service), not of
 * the request.
 */
export const makeWriteLock = Effect.fnUntraced(function* (timeouts: WriteLockTimeouts) {
  const semaphore = yield* Semaphore.make(1)
  const scope = yield* Effect.scope
  const lockTimeout = Duration.fromInputUnsafe(timeouts.lock)
  const stepTimeout = Duration.fromInputUnsafe(timeouts.step)
  const lockTimeoutMs = Duration.toMillis(lockTimeout)
  // When the write holding the lock took it; `undefined` while it is free.
  let heldSince: number | undefined

  // Fails once the write holding the lock has held it for the lock timeout, and this write has waited as long (a
  // write that comes just as a stuck one ends still gets its turn): checked when that time comes, and again for
  // each write that takes the lock meanwhile.
  const holderStuck = <E2>(onBusy: () => E2): Effect.Effect<never, E2> =>
    Effect.gen(function* () {
      const waitingSince = yield* Clock.currentTimeMillis
      while (true) {
        const now = yield* Clock.currentTimeMillis
        const refuseAt = Math.max(waitingSince, heldSince ?? now) + lockTimeoutMs
        if (heldSince !== undefined && now >= refuseAt) return yield* Effect.fail(onBusy())
        yield* Effect.sleep(Duration.millis(refuseAt - now))
      }
    })
  const release = Effect.suspend(() => {
    heldSince = undefined
    return semaphore.release(1)
  })

  const bounded =
    (started: Array<Fiber.Fiber<unknown, unknown>>): BoundedStep =>
    (step, onTimeout) =>
      // The step's outcome is its exit, so one that ends after the write gave up on it fails nobody's fiber.
      Effect.flatMap(Effect.forkIn(Effect.exit(step), scope), (fiber) => {
        started.push(fiber)
        return Effect.timeoutOrElse(Effect.flatten(Fiber.join(fiber)), {
          duration: stepTimeout,
          orElse: () => Effect.fail(onTimeout())
        })
      })

  // Released at once when every step has ended, else once the steps still running have.
  const releaseAfter = (started: ReadonlyArray<Fiber.Fiber<unknown, unknown>>) =>
    Effect.suspend(() => {
      const running = started.filter((fiber) => fiber.pollUnsafe() === undefined)
      if (running.length === 0) return Effect.asVoid(release)
      return Effect.logWarning(
        "a file system call of a file write did not finish in time: the next writes wait for it, at most " +
          `${Duration.format(lockTimeout)} each`
      ).pipe(Effect.andThen(Effect.forkIn(Effect.andThen(Fiber.awaitAll(running), release), scope)), Effect.asVoid)
    })

  const withLock: WriteLock["withLock"] = (onBusy, body) =>
    Effect.uninterruptibleMask((restore) => {
      // The race takes the permit in a fiber of its own: a request interrupted as that fiber succeeds (or as the
      // stuck-holder check fails at the same moment) has the permit without having seen it, and gives it back.
      let taken = false
      const take = Effect.tap(semaphore.take(1), () =>
        Effect.sync(() => {
          taken = true
        })
      )
      const acquired = restore(Effect.raceFirst(take, holderStuck(onBusy))).pipe(
        Effect.onExit((exit) => (Exit.isFailure(exit) && taken ? release : Effect.void))
      )
      return Effect.flatMap(Effect.andThen(acquired, Clock.currentTimeMillis), (now) => {
        heldSince = now
        const started: Array<Fiber.Fiber<unknown, unknown>> = []
        return Effect.ensuring(restore(body(bounded(started))), releaseAfter(started))
      })
    })

  return { withLock } satisfies WriteLock
})
