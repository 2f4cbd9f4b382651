import * as path from "node:path"
import { assert } from "@effect/vitest"
import type { Event, EventInput, EventQuery } from "@gatehouse-edge/contract/domain"
import { ConfigEvents, HealthEvents } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Fiber, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { tempDir } from "../store/TempDir.js"

/** The event repository of the SQLite store at `filename`, open for the scope. */
export const repositoryAt = (filename: string) =>
  Effect.map(
    Layer.build(EventRepository.layer.pipe(Layer.provide(Layer.orDie(StoreLive.layer({ filename }))))),
    (context) => Context.get(context, EventRepository)
  )

/** Opens a SQLite store at `filename` and a bus on its event repository (optionally wrapped), closed with the scope. */
export const openBus = (
  filename: string,
  options: EventBus.EventBusOptions = {},
  wrap: (repository: EventRepository["Service"]) => EventRepository["Service"] = (repository) => repository
) =>
  Effect.gen(function* () {
    const repository = yield* repositoryAt(filename)
    const bus = yield* EventBus.make(options).pipe(Effect.provideService(EventRepository, wrap(repository)))
    return { bus, repository }
  })

/**
 * A bus on a SQLite file and the store's `SqlClient` (the one its changes write through), with a `things` table
 * for the changes; the repository may be wrapped.
 */
export const busWithStore = (
  wrap: (repository: EventRepository["Service"]) => EventRepository["Service"] = (repository) => repository
) =>
  Effect.gen(function* () {
    const store = yield* Layer.build(Layer.orDie(StoreLive.layer({ filename: path.join(yield* tempDir, "g.db") })))
    const sql = Context.get(store, SqlClient.SqlClient)
    const repository = Context.get(
      yield* Layer.build(EventRepository.layer.pipe(Layer.provide(Layer.succeedContext(store)))),
      EventRepository
    )
    const bus = yield* EventBus.make().pipe(Effect.provideService(EventRepository, wrap(repository)))
    yield* Effect.orDie(sql`CREATE TABLE things (name TEXT PRIMARY KEY NOT NULL)`)
    const things = Effect.orDie(sql<{ name: string }>`SELECT name FROM things ORDER BY name`).pipe(
      Effect.map((rows) => rows.map((r) => r.name))
    )
    const add = (name: string) => Effect.orDie(sql`INSERT INTO things (name) VALUES (${name})`)
    return { bus, things, add }
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

/**
 * A test event named `label`: a `config/reload` that added a route of that name, or with category `health` a
 * `health/up` of that alias. Tests tell events apart by their label.
 */
export const input = (label: string, category: "config" | "health" = "config"): EventInput =>
  category === "config"
    ? ConfigEvents.reloaded({ source: "routes", added: [label], removed: [], changed: [] })
    : HealthEvents.up({ alias: label, status: "healthy", previous: "unhealthy", latency_ms: 0 })

/** The label of an event made by {@link input}. */
export const labelOf = (event: Event): string => {
  const data = event.data as { readonly added?: ReadonlyArray<string>; readonly alias?: string }
  return data.added?.[0] ?? data.alias ?? `${event.category}/${event.action}`
}

/** Compact form of events for assertions: their labels. */
export const actions = (events: ReadonlyArray<Event>) => events.map(labelOf)

/**
 * Waits for each follower and checks what it received against the bus's whole `history`: a contiguous run of the
 * history its query selects, up to the end (nothing skipped, nothing twice), from the beginning when it asked for
 * no `limit`.
 */
export const assertContiguousFollows = (
  history: ReadonlyArray<Event>,
  followers: ReadonlyArray<{
    readonly query: EventQuery
    readonly received: ReadonlyArray<Event>
    readonly fiber: Fiber.Fiber<unknown, unknown>
  }>
) =>
  Effect.gen(function* () {
    for (const { query, received, fiber } of followers) {
      yield* Fiber.join(fiber)
      const expected = history.filter((e) => query.category === undefined || e.category === query.category)
      const ids = received.map((e) => e.id)
      const start = expected.findIndex((e) => e.id === ids[0])
      assert.deepStrictEqual(
        ids,
        expected.slice(start).map((e) => e.id),
        JSON.stringify(query)
      )
      if (query.limit === undefined) assert.strictEqual(start, 0, "without a limit it starts at the beginning")
    }
  })
