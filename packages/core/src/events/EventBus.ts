import type { Event, EventInput, EventQuery } from "@gatehouse-edge/contract/domain"
import { SubscriberTooSlow } from "@gatehouse-edge/contract/domain"
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as EventIds from "./EventIds.js"
import { EventRepository } from "./EventRepository.js"
import { Events, type Recorded } from "./Events.js"
import { checkedPage, followsShares, missingSince, missingSinceOfCategory, newestEver } from "./MissingSince.js"

// Events read per page when a follower resumes after `since`.
const replayPageSize = 500

/** Tuning of the bus. */
export interface EventBusOptions {
  /** How many events the durable history keeps (config `events.history`); default 1000, 0 keeps none. */
  readonly historyCap?: number
  /** Default for `follow`'s `bufferSize`: how far a live subscriber may fall behind; default 256. */
  readonly bufferSize?: number
}

/** The {@link Events} service plus introspection for tests and metrics. */
export type EventBus = Events["Service"] & {
  /** How many live subscriptions (`follow` streams) are open. */
  readonly subscriberCount: Effect.Effect<number>
}

interface Subscriber {
  readonly category: string | undefined
  readonly queue: Queue.Queue<Event, SubscriberTooSlow | Cause.Done>
  readonly bufferSize: number
}

/**
 * Builds the bus on the {@link EventRepository}. Publishing is serialised, so ids are strictly increasing and every
 * subscriber sees events in id order; an event is stored (with the state change it describes, when published
 * through `transaction`) before it is delivered. Each subscriber has its own
 * bounded queue filled without waiting: one that is full is failed with {@link SubscriberTooSlow} and removed,
 * so no subscriber can block or slow the publisher or the others. Closing the scope ends every follow stream.
 */
export const make = Effect.fnUntraced(function* (options: EventBusOptions = {}) {
  const repository = yield* EventRepository
  const historyCap = options.historyCap ?? 1000
  const defaultBufferSize = options.bufferSize ?? 256
  const subscribers = new Set<Subscriber>()
  let closed = false
  const lock = yield* Semaphore.make(1)
  // After the newest id the history ever held, kept or not (with `events.history: 0` none is): a `since` is told
  // ours or not by where it falls (`missingSince`), so no new id may sort before an old one.
  const ids = EventIds.make(newestEver(yield* repository.extent))

  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      closed = true
      for (const s of subscribers) Queue.endUnsafe(s.queue)
      subscribers.clear()
    })
  )

  // Offers each event to every matching subscriber without waiting; a full subscriber is dropped at once,
  // buffered events included: a stuck consumer should not hold them, and it resumes without a gap by following
  // again with `since` = the last id it got.
  const deliver = (events: ReadonlyArray<Event>) =>
    Effect.suspend(() => {
      const dropped: Array<Subscriber> = []
      for (const event of events) {
        for (const s of subscribers) {
          if (s.category !== undefined && s.category !== event.category) continue
          if (Queue.offerUnsafe(s.queue, event)) continue
          subscribers.delete(s)
          dropped.push(s)
        }
      }
      if (dropped.length === 0) return Effect.void
      return Effect.forEach(
        dropped,
        (s) =>
          Effect.andThen(
            Effect.ignore(Queue.clear(s.queue)),
            Queue.fail(s.queue, new SubscriberTooSlow({ buffer_size: s.bufferSize }))
          ),
        { discard: true }
      )
    })

  const stamp = Effect.fnUntraced(function* (inputs: ReadonlyArray<EventInput>) {
    const now = yield* Clock.currentTimeMillis
    const timestamp = DateTime.formatIso(DateTime.makeUnsafe(now))
    const events: Array<Event> = []
    for (const input of inputs) {
      const id = yield* ids.next(now)
      const data = toJson(input.data ?? {})
      events.push({ id, timestamp, level: input.level, category: input.category, action: input.action, data } as Event)
    }
    return events
  })

  /**
   * The change, then its events stamped and stored, in one transaction; then the events delivered. All under the
   * lock, so ids are assigned, committed and delivered in one order (on PostgreSQL too, whose transactions could
   * otherwise commit out of id order), and always before the store's connection is taken: no lock-order cycle.
   * Uninterruptible: a stored event is always delivered, so live subscribers never miss one.
   */
  const record = <A, E, R>(change: Effect.Effect<Recorded<A>, E, R>) =>
    repository
      .transaction(
        Effect.flatMap(change, (recorded) =>
          Effect.flatMap(stamp(recorded.events), (events) =>
            Effect.as(repository.insert(events, historyCap), [recorded.value, events] as const)
          )
        )
      )
      .pipe(
        Effect.tap(([, events]) => deliver(events)),
        Effect.uninterruptible,
        lock.withPermits(1)
      )

  const publish = Effect.fn("Events.publish")(function* (input: EventInput) {
    const [, events] = yield* record(Effect.succeed({ value: undefined, events: [input] }))
    return events[0]!
  })

  const transaction = <A, E, R>(change: Effect.Effect<Recorded<A>, E, R>): Effect.Effect<A, E, R> =>
    record(change).pipe(
      Effect.map(([value]) => value),
      Effect.withSpan("Events.transaction")
    )

  // The events after `since`, checked: a `since` no longer (or never) stored fails with why, rather than reading
  // on from whatever is kept after it, and so does a page that events dropped beyond their share (failed sign-ins,
  // new and expired auth requests) left a hole in. A read of one category reads on past a `since` that only other
  // categories' events pushed out. The marks are read after the page: they only grow, so a trim in between can only
  // make it a gap.
  const readAfter = (since: string, category: string | undefined, limit: number | undefined) =>
    Effect.flatMap(repository.page(since, category, limit), ({ sinceKept, events }) => {
      if (sinceKept) {
        return followsShares(category)
          ? Effect.flatMap(repository.extent, (extent) => checkedPage(since, category, events, extent))
          : Effect.succeed(events)
      }
      if (category === undefined) return Effect.flatMap(repository.extent, (extent) => missingSince(since, extent))
      return Effect.flatMap(
        Effect.all([repository.extent, repository.categoryTrimmedThrough(category)]),
        ([extent, categoryMark]) => missingSinceOfCategory(since, category, events, extent, categoryMark)
      )
    })

  const history = Effect.fn("Events.history")(function* (query: EventQuery) {
    return query.since === undefined
      ? yield* repository.list(query)
      : yield* readAfter(query.since, query.category, query.limit)
  })

  const subscribe = (category: string | undefined, bufferSize: number) =>
    Effect.acquireRelease(
      Effect.map(Queue.bounded<Event, SubscriberTooSlow | Cause.Done>(bufferSize), (queue) => {
        const subscriber: Subscriber = { category, queue, bufferSize }
        // Following a bus that has shut down yields the snapshot and ends, rather than waiting forever.
        if (closed) Queue.endUnsafe(queue)
        else subscribers.add(subscriber)
        return subscriber
      }),
      (s) =>
        Effect.andThen(
          Effect.sync(() => subscribers.delete(s)),
          Queue.shutdown(s.queue)
        )
    )

  const follow = (query: EventQuery, followOptions?: { readonly bufferSize?: number }) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const bufferSize = Math.max(1, Math.floor(followOptions?.bufferSize ?? defaultBufferSize))
        // Subscribe first, then read: an event stored after the read is already being queued for us, and one
        // queued that is also in the snapshot (or older than it) is skipped by id, which is time order.
        const { queue } = yield* subscribe(query.category, bufferSize)
        // The last event the history gave; the live events start after it.
        let after = query.since
        const seen = (event: Event) => {
          after = event.id
        }
        const history =
          query.since === undefined
            ? Stream.fromIterableEffect(repository.list(query))
            : // A resume: every stored event after `since`, a page at a time (the history cap bounds them), each
              // page checked: a replay that falls behind the trimming fails rather than skipping what was dropped.
              Stream.paginate(query.since, (since) =>
                Effect.map(readAfter(since, query.category, replayPageSize), (page) => [
                  page,
                  page.length < replayPageSize ? Option.none() : Option.some(page.at(-1)!.id)
                ])
              )
        // One event per pull, not the whole queue: an event counts as "behind" until the consumer asks for
        // the next, so `bufferSize` bounds exactly how far a consumer can lag.
        const live = Stream.fromEffectRepeat(Queue.take(queue)).pipe(
          Stream.filter((event) => after === undefined || event.id > after)
        )
        return Stream.concat(
          Stream.tap(history, (event) => Effect.sync(() => seen(event))),
          live
        )
      })
    ).pipe(Stream.withSpan("Events.follow"))

  const bus: EventBus = {
    // `history` fails only for a query with `since`, as the service's overloads say.
    ...Events.of({ publish, transaction, history: history as Events["Service"]["history"], follow }),
    subscriberCount: Effect.sync(() => subscribers.size)
  }
  return bus
})

/** The {@link Events} layer on the event history: `EventBus.layer({ historyCap: 1000 })`. */
export const layer = (options?: EventBusOptions): Layer.Layer<Events, never, EventRepository> =>
  Layer.effect(Events, make(options))

/**
 * Live subscribers and the history must see the same `data`: a JSON round trip turns dates into strings and
 * drops `undefined` here rather than only in the stored copy. Non-JSON data (a bigint, a cycle) is a defect.
 */
const toJson = <A>(data: A): A => JSON.parse(JSON.stringify(data)) as A
