import type { Worker } from "node:worker_threads"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"

/** Every slot is busy and `maxQueued` jobs already wait for one. */
export class PoolFull extends Data.TaggedError("PoolFull")<{ readonly queued: number }> {}

/** A job ran past its time budget; its worker was terminated and replaced. */
export class JobTimedOut extends Data.TaggedError("JobTimedOut")<{ readonly timeoutMs: number }> {}

/** A job's worker died (uncaught error, exit, out of memory) or reported a failure; a dead worker is replaced. */
export class WorkerFailed extends Data.TaggedError("WorkerFailed")<{ readonly detail: string }> {}

/** How a {@link WorkerPool} is sized and how it starts a worker. */
export interface WorkerPoolOptions {
  /** Starts one worker thread (called lazily: at a slot's first job, and to replace a dead worker). */
  readonly spawn: () => Worker
  /** Worker threads at most. */
  readonly size: number
  /** Jobs that may wait for a free worker; one more is refused with {@link PoolFull}. */
  readonly maxQueued: number
  /**
   * A worker with no job for this long is stopped, so a server that validated one large document does not keep
   * a thread (tens of MiB: its own V8 heap and module graph) for good; the next large job starts one again
   * (~100 ms). Default 15 s.
   */
  readonly idleTimeout?: Duration.Input
}

/** Runs jobs on worker threads: one job per worker at a time, a bounded queue, a time budget per job. */
export interface WorkerPool<I, O> {
  readonly run: (input: I, timeout: Duration.Input) => Effect.Effect<O, PoolFull | JobTimedOut | WorkerFailed>
  /** Jobs running on a worker right now. */
  readonly running: Effect.Effect<number>
  /** Jobs waiting for a worker. */
  readonly queued: Effect.Effect<number>
}

/** What a worker posts back for a job: its result, or why it could not produce one. */
export type WorkerReply<O> = { readonly ok: true; readonly value: O } | { readonly ok: false; readonly error: string }

interface Slot {
  worker: Worker | undefined
  exited: string | undefined
  /** Counts the jobs the slot took: an idle timer started before the latest one has nothing to stop. */
  jobs: number
}

/**
 * A scoped pool of `size` worker threads. Workers start when first needed; a job waits (FIFO) for a free one,
 * unless `maxQueued` jobs already wait. A job that outlives its time budget or whose worker dies fails, and the
 * worker is replaced, so no job can hang and no broken worker is reused. A job whose caller is interrupted keeps
 * its worker until it finishes (its result is dropped): cheaper than restarting a thread. Closing the scope
 * terminates every worker.
 */
export const make = Effect.fnUntraced(function* <I, O>(options: WorkerPoolOptions) {
  const idle = yield* Queue.bounded<Slot>(options.size)
  for (let i = 0; i < options.size; i++) yield* Queue.offer(idle, { worker: undefined, exited: undefined, jobs: 0 })
  const idleTimeout = options.idleTimeout ?? Duration.seconds(15)
  const slots = new Set<Slot>()
  let waiting = 0
  let running = 0
  let closed = false

  const start = (slot: Slot): Worker => {
    const worker = options.spawn()
    // A listener must always be there: an `error` event without one would crash the process. A worker that was
    // already replaced may still report its end: it no longer speaks for the slot.
    worker.on("error", (error) => {
      if (slot.worker === worker) slot.exited = error instanceof Error ? error.message : String(error)
    })
    worker.on("exit", (code) => {
      if (slot.worker === worker) slot.exited ??= `exit code ${code}`
    })
    slot.worker = worker
    slot.exited = undefined
    slots.add(slot)
    return worker
  }

  const stop = (slot: Slot): Effect.Effect<void> => {
    const worker = slot.worker
    slot.worker = undefined
    slots.delete(slot)
    return worker === undefined ? Effect.void : Effect.promise(() => worker.terminate()).pipe(Effect.asVoid)
  }

  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      closed = true
      return Effect.forEach([...slots], stop, { discard: true })
    })
  )

  // One job on one worker: its reply, or the reason there is none.
  const exchange = (worker: Worker, slot: Slot, input: I) =>
    Effect.callback<O, WorkerFailed>((resume) => {
      // Whichever comes first ends the job and takes all three listeners off: the cleanup returned below only
      // runs on interruption, and a worker serves many jobs (listeners left behind would pile up on it).
      const detach = () => {
        worker.off("message", onMessage)
        worker.off("error", onError)
        worker.off("exit", onExit)
      }
      const onMessage = (reply: WorkerReply<O>) => {
        detach()
        resume(reply.ok ? Effect.succeed(reply.value) : Effect.fail(new WorkerFailed({ detail: reply.error })))
      }
      const onError = (error: unknown) => {
        detach()
        resume(Effect.fail(new WorkerFailed({ detail: error instanceof Error ? error.message : String(error) })))
      }
      const onExit = (code: number) => {
        detach()
        resume(Effect.fail(new WorkerFailed({ detail: slot.exited ?? `exit code ${code}` })))
      }
      worker.on("message", onMessage)
      worker.on("error", onError)
      worker.on("exit", onExit)
      worker.postMessage(input)
      return Effect.sync(detach)
    })

  const scope = yield* Effect.scope

  // Stops the slot's worker if it took no job since `jobs` (one synchronous check-and-clear: a job that takes
  // the slot afterwards starts a new worker).
  const retireIfIdle = (slot: Slot, jobs: number) =>
    Effect.sleep(idleTimeout).pipe(
      Effect.andThen(Effect.suspend(() => (slot.jobs === jobs && slot.worker !== undefined ? stop(slot) : Effect.void)))
    )

  // The job runs in a fiber of the pool, so a caller that goes away does not cut it short: the worker is not free
  // before it finishes, and its slot goes back to the queue only then.
  const runOn = (slot: Slot, input: I, timeout: Duration.Input) =>
    Effect.suspend(() => {
      const worker = slot.exited === undefined && slot.worker !== undefined ? slot.worker : start(slot)
      const jobs = ++slot.jobs
      running++
      return exchange(worker, slot, input).pipe(
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () =>
            Effect.andThen(stop(slot), Effect.fail(new JobTimedOut({ timeoutMs: Duration.toMillis(timeout) })))
        }),
        // A worker that died is replaced at its next job; stop it now so its memory is freed.
        Effect.tapError(() => (slot.exited !== undefined ? stop(slot) : Effect.void)),
        Effect.ensuring(
          Effect.suspend(() => {
            running--
            return Queue.offer(idle, slot).pipe(
              Effect.andThen(Effect.forkIn(retireIfIdle(slot, jobs), scope, { startImmediately: true }))
            )
          })
        )
      )
    })

  const run = (input: I, timeout: Duration.Input): Effect.Effect<O, PoolFull | JobTimedOut | WorkerFailed> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend((): Effect.Effect<O, PoolFull | JobTimedOut | WorkerFailed> => {
        if (closed) return Effect.fail(new WorkerFailed({ detail: "the worker pool is closed" }))
        if (Queue.sizeUnsafe(idle) === 0 && waiting >= options.maxQueued) {
          return Effect.fail(new PoolFull({ queued: waiting }))
        }
        waiting++
        return restore(Queue.take(idle)).pipe(
          Effect.ensuring(Effect.sync(() => waiting--)),
          Effect.flatMap((slot) => Effect.forkIn(runOn(slot, input, timeout), scope)),
          Effect.flatMap((fiber) => restore(Fiber.join(fiber)))
        )
      })
    )

  return {
    run,
    running: Effect.sync(() => running),
    queued: Effect.sync(() => waiting)
  } satisfies WorkerPool<I, O> as WorkerPool<I, O>
})
