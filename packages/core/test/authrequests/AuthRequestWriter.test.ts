import { assert, describe, it } from "@effect/vitest"
import type { AuthRequest } from "@gatehouse-edge/contract/domain"
import { Cause, Data, Effect, Exit, Fiber, Option, Queue } from "effect"
import { type AuthRequestWaiters, makeAuthRequestWaiters } from "../../src/authrequests/AuthRequestWaiters.js"
import { type Change, makeAuthRequestWriter } from "../../src/authrequests/AuthRequestWriter.js"
import { actions, busWithStore, input } from "../events/TestBus.js"

class Refused extends Data.TaggedError("Refused")<{ readonly name: string }> {}

/**
 * A writer on a real bus and store, whose store transactions are counted, with changes that add a named row and
 * record an event of that name: what the writer does to the store is visible in `things` and the history.
 */
const writerOnStore = (waiters: AuthRequestWaiters = makeAuthRequestWaiters()) =>
  Effect.gen(function* () {
    const commits: Array<ReadonlyArray<string>> = []
    let rowsBefore: ReadonlyArray<string> = []
    const store: { things: Effect.Effect<ReadonlyArray<string>> } = { things: Effect.succeed([]) }
    const { bus, things, add } = yield* busWithStore((repository) => ({
      ...repository,
      // After each commit, the rows it added: what a caller may rely on once answered.
      transaction: (effect) =>
        Effect.tap(repository.transaction(effect), () =>
          Effect.map(store.things, (rows) => {
            commits.push(rows.filter((row) => !rowsBefore.includes(row)))
            rowsBefore = rows
          })
        )
    }))
    store.things = things
    const writer = yield* makeAuthRequestWriter(bus, waiters)
    const adds =
      (name: string): Change<string, never> =>
      () =>
        Effect.as(add(name), { answer: Exit.succeed(name), events: [input(name)], changed: [] })
    return { writer, bus, things, commits, adds }
  })

describe("AuthRequestWriter (group commit)", () => {
  it.effect("concurrent changes share transactions of at most 16, each caller answered with its own result", () =>
    Effect.gen(function* () {
      const { writer, bus, things, commits, adds } = yield* writerOnStore()
      const names = Array.from({ length: 40 }, (_, i) => `n${String(i).padStart(2, "0")}`)
      const answers = yield* Effect.forEach(names, (name) => writer.submit(adds(name)), { concurrency: "unbounded" })
      assert.deepStrictEqual(answers, names)
      assert.deepStrictEqual(yield* things, names)
      assert.isBelow(commits.length, 10, `${commits.length} transactions for 40 changes`)
      assert.isAtMost(Math.max(...commits.map((c) => c.length)), 16)
      // In the order submitted, with each change's event in its own transaction's order.
      assert.deepStrictEqual(actions(yield* bus.history({})), names)
    })
  )

  it.effect("a caller is answered only once the transaction holding its change has committed", () =>
    Effect.gen(function* () {
      const { writer, commits, adds } = yield* writerOnStore()
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => `c${i}`),
        (name) =>
          Effect.tap(writer.submit(adds(name)), () =>
            Effect.sync(() => assert.isTrue(commits.flat().includes(name), `${name} was committed first`))
          ),
        { concurrency: "unbounded" }
      )
    })
  )

  it.effect("a refusal writes nothing and the rest of its batch commits", () =>
    Effect.gen(function* () {
      const { writer, bus, things, adds } = yield* writerOnStore()
      const refuses: Change<string, Refused> = () =>
        Effect.succeed({ answer: Exit.fail(new Refused({ name: "r" })), events: [], changed: [] })
      const [a, refused, b] = yield* Effect.all(
        [writer.submit(adds("a")), Effect.flip(writer.submit(refuses)), writer.submit(adds("b"))],
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual([a, b], ["a", "b"])
      assert.instanceOf(refused, Refused)
      assert.deepStrictEqual(yield* things, ["a", "b"])
      assert.deepStrictEqual(actions(yield* bus.history({})), ["a", "b"])
    })
  )

  it.effect("a change that dies fails alone: its batch is written again without it", () =>
    Effect.gen(function* () {
      const { writer, bus, things, adds } = yield* writerOnStore()
      // Adds its row, then dies: the row must go with the failed change, and only with it.
      const dies: Change<string, never> = (batch) =>
        Effect.andThen(adds("doomed")(batch), Effect.die(new Error("storage failure")))
      const exits = yield* Effect.forEach(
        [adds("a"), dies, adds("b"), adds("c")],
        (change) => Effect.exit(writer.submit(change)),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(
        exits.map((exit) => (Exit.isSuccess(exit) ? exit.value : Cause.hasDies(exit.cause) ? "died" : "?")),
        ["a", "died", "b", "c"]
      )
      assert.deepStrictEqual(yield* things, ["a", "b", "c"])
      assert.deepStrictEqual(actions(yield* bus.history({})), ["a", "b", "c"])
    })
  )

  it.effect("a caller interrupted before the writer takes its change: the change is not written", () =>
    Effect.gen(function* () {
      const { writer, things, adds } = yield* writerOnStore()
      // Queued, then interrupted before the writer (woken by the scheduler) has run.
      const fiber = yield* Effect.forkChild(writer.submit(adds("dropped")), { startImmediately: true })
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* writer.submit(adds("kept")), "kept")
      assert.deepStrictEqual(yield* things, ["kept"])
    })
  )

  it.effect("wakes the watchers of the requests a change reports, before answering", () =>
    Effect.gen(function* () {
      const waiters = makeAuthRequestWaiters()
      const { writer } = yield* writerOnStore(waiters)
      const request = { auth_id: "ghreq_AAAAAAAAAAAAAAAAAAAAAAAA", state: "approved" } as AuthRequest
      const queue = yield* waiters.register(request.auth_id)
      const notifies: Change<string, never> = () =>
        Effect.succeed({ answer: Exit.succeed("done"), events: [input("x")], changed: [request] })
      yield* writer.submit(notifies)
      assert.deepStrictEqual(yield* Queue.poll(queue), Option.some(request))
    }).pipe(Effect.scoped)
  )
})
