import * as path from "node:path"
import { Effect, Stream } from "effect"
import type { Event } from "../../src/domain/Event.js"
import * as EventBus from "../../src/events/EventBus.js"
import * as SqliteStore from "../../src/store/SqliteStore.js"
import { Store } from "../../src/store/Store.js"

/** Opens a SQLite store at `filename` (optionally wrapped) and a bus on it, both closed with the scope. */
export const openBus = (
  filename: string,
  options: EventBus.EventBusOptions = {},
  wrap: (store: Store["Service"]) => Store["Service"] = (store) => store
) =>
  Effect.gen(function* () {
    const store = yield* Effect.orDie(SqliteStore.make({ filename }))
    const bus = yield* EventBus.make(options).pipe(Effect.provideService(Store, wrap(store)))
    return { bus, store }
  })

/** A bus in `dir`. */
export const busIn = (dir: string, options: EventBus.EventBusOptions = {}) =>
  openBus(path.join(dir, "gatehouse.db"), options)

/** Polls `condition` (yielding to other fibers in between) until it holds: no sleeps, and it gives up. */
export const eventually = (what: string, condition: Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100_000; i++) {
      if (yield* condition) return
      yield* Effect.yieldNow
    }
    return yield* Effect.die(new Error(`gave up waiting for ${what}`))
  })

/** Runs `stream` in the background, pushing what it emits into the returned array. */
export const collect = <E>(stream: Stream.Stream<Event, E>) =>
  Effect.gen(function* () {
    const received: Array<Event> = []
    const fiber = yield* stream.pipe(
      Stream.runForEach((event) => Effect.sync(() => received.push(event))),
      Effect.forkChild
    )
    return { received, fiber }
  })

/** Compact form of events for assertions. */
export const actions = (events: ReadonlyArray<Event>) => events.map((e) => e.action)
