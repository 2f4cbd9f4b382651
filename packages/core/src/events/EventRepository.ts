import type { EventQuery } from "@gatehouse-edge/contract/domain"
import { Event } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlError from "effect/sql/SqlError"
import { eventShares } from "./EventShares.js"

/** An `events` row: the event with `data` as JSON text. */
interface EventRow {
  readonly id: string
  readonly timestamp: string
  readonly level: string
  readonly category: string
  readonly action: string
  readonly data: string
}

/**
 * The bounds of the history (see `EventRepository.extent`): of what it keeps, and of what it ever held; `undefined`
 * where there is none.
 */
export interface HistoryExtent {
  /** The oldest and newest kept ids. */
  readonly oldest: string | undefined
  readonly newest: string | undefined
  /** The oldest id the history ever held, kept or since dropped: an older id was never one of its events. */
  readonly first: string | undefined
  /** The newest id the cap dropped (with a cap of 0, the newest event, which was never kept). */
  readonly trimmedThrough: string | undefined
  /** The newest failed sign-in dropped beyond its share: a read from before it has a gap. */
  readonly failedTrimmedThrough: string | undefined
  /** The newest new or expired auth request dropped beyond its share: a read from before it has a gap. */
  readonly requestTrimmedThrough: string | undefined
}

/** A page of events after `since` (see `EventRepository.page`), and whether `since` itself is still stored. */
export interface EventPage {
  readonly sinceKept: boolean
  readonly events: ReadonlyArray<Event>
}

const decodeEvent = Schema.decodeUnknownSync(Event)
const toEvent = (row: EventRow): Event => decodeEvent({ ...row, data: JSON.parse(row.data) })

/**
 * `limit` and `cap` are counts: negative or NaN means 0 and fractions round down; `undefined` or `Infinity` means
 * no limit.
 */
const count = (n: number | undefined): number | undefined =>
  n === undefined || n === Number.POSITIVE_INFINITY ? undefined : n > 0 ? Math.min(Math.floor(n), 2 ** 31 - 1) : 0

export { authRequestTrafficShare, failedSignInShare } from "./EventShares.js"

/**
 * The durable event history (the `events` table), in SQL that SQLite and PostgreSQL both accept. Storage failures
 * are defects: the bus has nothing better to do with them than to let the request fail with a 500.
 */
export class EventRepository extends Context.Service<
  EventRepository,
  {
    /** Runs `effect` in one store transaction (a savepoint when one is open); a storage failure is a defect. */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * Stores events (in id order, one statement) and drops the oldest beyond `cap` (`Infinity`: none), failed
     * sign-ins and new or expired auth requests beyond their shares of it (`eventShares`), marking the newest each
     * drops (of each category, for the cap), in the caller's transaction: the bus runs it inside
     * {@link transaction}, with the state change the events describe. Trimming is batched: between trims up to 1 %
     * more than `cap` (at least one more) stay, never fewer than `cap`.
     */
    readonly insert: (events: ReadonlyArray<Event>, cap: number) => Effect.Effect<void>
    /** {@link insert} of one event in a transaction of its own. */
    readonly append: (event: Event, cap: number) => Effect.Effect<void>
    /**
     * Events matching the query, oldest first; `limit` keeps the newest, or with `since` the oldest after it (a
     * page: the next starts after its last event). `since` need not be stored: see {@link page} for a checked read.
     */
    readonly list: (query: EventQuery) => Effect.Effect<ReadonlyArray<Event>>
    /**
     * The oldest `count` (`undefined`: all) events after `since` (of `category`, if given), oldest first: a page of
     * a replay, and whether `since` itself is still stored. Read in one statement with `since`: trimming drops only
     * the oldest events, so while `since` is kept every later event is too, events beyond their share aside (see
     * {@link HistoryExtent.failedTrimmedThrough} and `requestTrimmedThrough`, read after the page: they only grow).
     * When it is not, the page is whole only if no event the read selects after `since` was dropped: the caller
     * tells from the marks, read after the page ({@link categoryTrimmedThrough}).
     */
    readonly page: (since: string, category: string | undefined, count: number | undefined) => Effect.Effect<EventPage>
    /** Where the history starts and ends, kept and ever held, and what trimming dropped: see {@link HistoryExtent}. */
    readonly extent: Effect.Effect<HistoryExtent>
    /**
     * The newest event of `category` the cap dropped, or older than which every category counts as dropped (a store
     * from before this was kept), whichever is newer; `undefined` when none. Events beyond their share are not in
     * it: see {@link HistoryExtent.failedTrimmedThrough}.
     */
    readonly categoryTrimmedThrough: (category: string) => Effect.Effect<string | undefined>
  }
>()("@gatehouse-edge/core/EventRepository") {
  /** The repository on the store's `SqlClient`. */
  static readonly layer: Layer.Layer<EventRepository, never, SqlClient.SqlClient> = Layer.effect(
    EventRepository,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      // Trimming walks `keep` index entries to find the boundary: on every append it cost about as much as the
      // insert at a cap of 1,000 (the default) and more at 10,000 (bench/auth-requests.ts). It runs when the cap
      // changes and then once per `keep / 100` events: between trims the table holds up to 1 % more than `cap`,
      // never fewer.
      const trimState = { keep: undefined as number | undefined, sinceTrim: 0 }
      const trimDue = (keep: number, added: number) => {
        trimState.sinceTrim += added
        if (keep !== trimState.keep || trimState.sinceTrim >= Math.max(1, Math.floor(keep / 100))) {
          trimState.keep = keep
          trimState.sinceTrim = 0
          return true
        }
        return false
      }

      const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql
          .withTransaction(effect)
          .pipe(
            Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, Effect.die)
          ) as Effect.Effect<A, E, R>

      const rowOf = (event: Event): Record<string, unknown> => ({ ...event, data: JSON.stringify(event.data) })
      const chunk = 16
      // On every state change of a busy server (bench/auth-requests.ts), so chained rather than an `Effect.fn`:
      // the bus's transaction has the span.
      const insert = (events: ReadonlyArray<Event>, cap: number): Effect.Effect<void> =>
        Effect.suspend(() => insertNow(events, cap))
      const insertNow = (events: ReadonlyArray<Event>, cap: number): Effect.Effect<void> => {
        if (events.length === 0) return Effect.void
        const keep = count(cap)
        // Up to `chunk` rows a statement: few statements for a batch, and few distinct texts to prepare and cache.
        const statements: Array<Effect.Effect<unknown, SqlError.SqlError>> = []
        for (let i = 0; i < events.length; i += chunk) {
          const [first, ...rest] = events.slice(i, i + chunk).map(rowOf)
          statements.push(sql`INSERT INTO events ${sql.insert([first!, ...rest])}`)
        }
        // Everything up to the newest `keep` goes: the subquery finds the (keep+1)-th newest id, none if short.
        // First each share's events, down to their share (see `eventShares`). Each trim first marks what it drops
        // (`event_marks`), so a `since` it dropped is told from one never stored, and a resume from before a
        // dropped event of a share from one that missed nothing.
        if (keep !== undefined && trimDue(keep, events.length)) {
          statements.push(sql`UPDATE event_marks SET first_id = COALESCE(first_id, (SELECT MIN(id) FROM events))`)
          for (const share of eventShares) {
            const ofShare = sql`category = ${share.category} AND ${sql.in("action", share.actions)}`
            const shareBoundary = sql`(SELECT id FROM events WHERE ${ofShare}
              ORDER BY id DESC LIMIT 1 OFFSET ${share.share(keep)})`
            statements.push(
              sql`UPDATE event_marks SET ${sql(share.mark)} = COALESCE(${shareBoundary}, ${sql(share.mark)})`,
              sql`DELETE FROM events WHERE ${ofShare} AND id <= ${shareBoundary}`
            )
          }
          const boundary = sql`(SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ${keep})`
          statements.push(
            sql`UPDATE event_marks SET trimmed_through = COALESCE(${boundary}, trimmed_through)`,
            // Per category too, so a follower of one is told of a gap only when one of its own went. The mark just
            // set is the boundary (without one, the last, through which nothing is left): no second walk to it.
            // Every event up to the last boundary is gone, so each category's newest dropped only grows.
            sql`INSERT INTO event_category_marks (category, trimmed_through)
              SELECT category, MAX(id) FROM events WHERE id <= (SELECT trimmed_through FROM event_marks)
              GROUP BY category
              ON CONFLICT (category) DO UPDATE SET trimmed_through = excluded.trimmed_through`,
            sql`DELETE FROM events WHERE id <= ${boundary}`
          )
        }
        return Effect.orDie(Effect.forEach(statements, (statement) => statement, { discard: true }))
      }

      const append = Effect.fn("EventRepository.append")(function* (event: Event, cap: number) {
        yield* transaction(insert([event], cap))
      })

      const columns = sql`id, timestamp, level, category, action, data`
      const ofCategory = (category: string | undefined) =>
        category === undefined ? sql`` : sql`AND category = ${category}`
      const limitOf = (limit: number | undefined) => (limit === undefined ? sql`` : sql`LIMIT ${limit}`)
      // The oldest `limit` after `since`, ascending: on the (category, id) index with a category.
      const after = (since: string, category: string | undefined, limit: number | undefined) =>
        sql<EventRow>`SELECT ${columns} FROM events WHERE id > ${since} ${ofCategory(category)}
          ORDER BY id ASC ${limitOf(limit)}`

      const list = Effect.fn("EventRepository.list")(function* (query: EventQuery) {
        const limit = count(query.limit)
        if (limit === 0) return []
        if (query.since !== undefined) {
          // The oldest after it, not the newest: a client continues from the last it got, skipping none.
          const rows = yield* after(query.since, query.category, limit).pipe(Effect.orDie)
          return rows.map(toEvent)
        }
        const where = query.category === undefined ? sql`` : sql`WHERE category = ${query.category}`
        // Newest first so LIMIT keeps the newest, then reversed: callers get time order.
        const rows =
          yield* sql<EventRow>`SELECT ${columns} FROM events ${where} ORDER BY id DESC ${limitOf(limit)}`.pipe(
            Effect.orDie
          )
        return rows.map(toEvent).reverse()
      })

      const page = Effect.fn("EventRepository.page")(function* (
        since: string,
        category: string | undefined,
        limit: number | undefined
      ) {
        // `since`'s own row and the page in one statement, so one snapshot: on PostgreSQL too, where each
        // statement of a read-committed transaction sees its own.
        const rows = yield* sql<EventRow>`SELECT ${columns} FROM events WHERE id = ${since}
          UNION ALL SELECT * FROM (${after(since, category, count(limit))}) AS page ORDER BY id`.pipe(Effect.orDie)
        const sinceKept = rows[0]?.id === since
        return { sinceKept, events: (sinceKept ? rows.slice(1) : rows).map(toEvent) }
      })

      const extent = sql<{
        oldest: string | null
        newest: string | null
        first_id: string | null
        trimmed_through: string | null
        failed_trimmed_through: string | null
        request_trimmed_through: string | null
      }>`SELECT (SELECT MIN(id) FROM events) AS oldest, (SELECT MAX(id) FROM events) AS newest,
          first_id, trimmed_through, failed_trimmed_through, request_trimmed_through FROM event_marks`.pipe(
        Effect.orDie,
        Effect.map(([row]) => ({
          oldest: row?.oldest ?? undefined,
          newest: row?.newest ?? undefined,
          // Never trimmed: the oldest kept is the first.
          first: row?.first_id ?? row?.oldest ?? undefined,
          trimmedThrough: row?.trimmed_through ?? undefined,
          failedTrimmedThrough: row?.failed_trimmed_through ?? undefined,
          requestTrimmedThrough: row?.request_trimmed_through ?? undefined
        })),
        Effect.withSpan("EventRepository.extent")
      )

      const categoryTrimmedThrough = Effect.fn("EventRepository.categoryTrimmedThrough")(function* (category: string) {
        const [row] = yield* sql<{ own: string | null; all: string | null }>`SELECT
            (SELECT trimmed_through FROM event_category_marks WHERE category = ${category}) AS own,
            all_categories_trimmed_through AS "all" FROM event_marks`.pipe(Effect.orDie)
        const own = row?.own ?? undefined
        const all = row?.all ?? undefined
        return own === undefined || (all !== undefined && all > own) ? all : own
      })

      return EventRepository.of({ transaction, insert, append, list, page, extent, categoryTrimmedThrough })
    })
  )
}
