import type { AuthRequest, AuthRequestKind, EventInput } from "@gatehouse-edge/contract/domain"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type { Events } from "../events/Events.js"
import type { AuthRequestWaiters } from "./AuthRequestWaiters.js"

/** What the state changes of one batch share: its time, and each kind's pending count once a change has read it. */
export interface Batch {
  readonly now: number
  /** Unexpired pending requests of a kind at `now`, kept current by the batch's changes once read (see `create`). */
  readonly pending: Map<AuthRequestKind, number>
}

/**
 * What a state change did, inside its batch's transaction: its answer, the events that describe it and the
 * requests whose watchers are woken. A refusal (a failed `answer`) must have written nothing: the batch's other
 * changes commit with it.
 */
export interface Outcome<A, E> {
  readonly answer: Exit.Exit<A, E>
  readonly events: ReadonlyArray<EventInput>
  readonly changed: ReadonlyArray<AuthRequest>
}

/** A state change run in a batch's transaction. Storage failures are defects. */
export type Change<A, E> = (batch: Batch) => Effect.Effect<Outcome<A, E>>

/** Runs state changes in group commits; each caller is answered once its change is committed. */
export interface AuthRequestWriter {
  readonly submit: <A, E>(change: Change<A, E>) => Effect.Effect<A, E>
}

interface Submitted {
  readonly change: Change<unknown, unknown>
  readonly resume: (answer: Exit.Exit<unknown, unknown>) => void
  /** The caller went away (e.g. a cancelled call) before the writer took the change: it is not written. */
  cancelled: boolean
}

// At most this many changes a transaction, then the event loop runs before the next: the answers of one batch are
// written and new requests read while the next is stored, so a busy client and the server work at the same time
// instead of taking turns. One transaction for 32 waiting changes took less CPU (380 against 425 µs a pair) but
// 15 % fewer pairs a second than two of 16 (bench/auth-requests.ts, 32 clients); 8 was no better than 16.
const maxBatch = 16

/**
 * The group commit of auth-request state changes (create, approve, reject). Changes submitted while a batch is
 * being written wait in a queue; the writer takes up to {@link maxBatch} of them, runs them one after the other in
 * one transaction of the event bus with the events they record, commits, then wakes their watchers and answers
 * each caller. A pair's four commits (state change and event, twice) become one per batch; a caller is answered
 * only after
 * the commit that holds its change, so nothing acknowledged can be lost. Ordering is the queue's: of two
 * opposite verdicts in one batch the first submitted wins, as it would one batch apart. A batch that fails (a
 * storage failure: it rolled back as a whole) is run again one change at a time, so one bad change fails alone.
 */
export const makeAuthRequestWriter = (
  events: Events["Service"],
  waiters: AuthRequestWaiters
): Effect.Effect<AuthRequestWriter, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Submitted>()

    const write = (batch: ReadonlyArray<Submitted>) =>
      events.transaction(
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const state: Batch = { now, pending: new Map() }
          return Effect.map(
            Effect.forEach(batch, (submitted) => submitted.change(state)),
            (outcomes) => ({ value: outcomes, events: outcomes.flatMap((outcome) => outcome.events) })
          )
        })
      )

    const answer = (batch: ReadonlyArray<Submitted>, outcomes: ReadonlyArray<Outcome<unknown, unknown>>) => {
      for (let i = 0; i < batch.length; i++) {
        for (const request of outcomes[i]!.changed) waiters.notify(request)
        batch[i]!.resume(outcomes[i]!.answer)
      }
    }

    // Uninterruptible: a committed batch is always answered.
    const run = (batch: ReadonlyArray<Submitted>): Effect.Effect<void> =>
      Effect.matchCauseEffect(write(batch), {
        onSuccess: (outcomes) => Effect.sync(() => answer(batch, outcomes)),
        onFailure: (cause) =>
          batch.length === 1
            ? Effect.sync(() => batch[0]!.resume(Exit.failCause(cause)))
            : Effect.forEach(batch, (submitted) => run([submitted]), { discard: true })
      }).pipe(Effect.uninterruptible)

    yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(Queue.takeBetween(queue, 1, maxBatch), (taken) => {
          const batch = taken.filter((submitted) => !submitted.cancelled)
          return Effect.andThen(batch.length === 0 ? Effect.void : run(batch), Effect.yieldNow)
        })
      ).pipe(
        Effect.ensuring(
          // Closing: changes still queued were never written; their callers are interrupted, not left waiting,
          // and so is anyone submitting after.
          Effect.flatMap(Queue.clear(queue), (left) =>
            Effect.andThen(
              Effect.sync(() => {
                for (const submitted of left) submitted.resume(Exit.failCause(Cause.interrupt()))
              }),
              Queue.shutdown(queue)
            )
          )
        )
      )
    )

    return {
      submit: <A, E>(change: Change<A, E>) =>
        Effect.callback<A, E>((resume) => {
          const submitted: Submitted = {
            change: change as Change<unknown, unknown>,
            resume: (answer) => resume(answer as Exit.Exit<A, E>),
            cancelled: false
          }
          if (!Queue.offerUnsafe(queue, submitted)) return resume(Effect.interrupt)
          // Interrupted while waiting: dropped if not yet taken; once taken, it is written and the answer unused.
          return Effect.sync(() => {
            submitted.cancelled = true
          })
        })
    }
  })
