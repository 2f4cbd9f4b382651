import type BetterSqlite3 from "better-sqlite3"
import { Effect, Schema } from "effect"
import { Event } from "../domain/Event.js"
import type { EventQuery } from "../domain/EventQuery.js"
import type { EventRepository } from "./Store.js"

/** An `events` row: the event with `data` as JSON text. */
interface EventRow {
  readonly id: string
  readonly timestamp: string
  readonly level: string
  readonly category: string
  readonly action: string
  readonly data: string
}

const decodeEvent = Schema.decodeUnknownSync(Event)
const encodeRow = (event: Event): EventRow => ({ ...event, data: JSON.stringify(event.data) })
const decodeRow = (row: EventRow): Event => decodeEvent({ ...row, data: JSON.parse(row.data) })

const columns = "id, timestamp, level, category, action, data"

/**
 * The event history in the `events` table. Every call is synchronous SQLite work wrapped in `Effect.sync`,
 * so a storage failure (disk full, corrupt file) is a defect, as the {@link Store} contract says.
 */
export const make = (db: BetterSqlite3.Database): EventRepository => {
  const insert = db.prepare(
    `INSERT INTO events (${columns}) VALUES (@id, @timestamp, @level, @category, @action, @data)`
  )
  // Everything up to the newest `cap` goes: the subquery finds the (cap+1)-th newest id, NULL if there is none.
  const trim = db.prepare("DELETE FROM events WHERE id <= (SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ?)")
  const appendTx = db.transaction((row: EventRow, cap: number) => {
    insert.run(row)
    if (cap !== Number.POSITIVE_INFINITY) trim.run(nonNegativeInt(cap))
  })

  // One prepared statement per filter shape, so each one gets a plan that uses the right index.
  const select = (...conditions: ReadonlyArray<string>) =>
    db.prepare(
      `SELECT ${columns} FROM events` +
        (conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "") +
        " ORDER BY id DESC LIMIT @limit"
    )
  const selectAll = select()
  const selectSince = select("id > @since")
  const selectCategory = select("category = @category")
  const selectBoth = select("id > @since", "category = @category")

  const append = (event: Event, cap: number) =>
    Effect.sync(() => {
      appendTx(encodeRow(event), cap)
    })

  const list = (query: EventQuery) =>
    Effect.sync((): ReadonlyArray<Event> => {
      const limit = query.limit === undefined ? -1 : nonNegativeInt(query.limit)
      if (limit === 0) return []
      const { since, category } = query
      // Newest first so LIMIT keeps the newest, then reversed: callers get time order.
      const rows = (
        since === undefined
          ? category === undefined
            ? selectAll.all({ limit })
            : selectCategory.all({ category, limit })
          : category === undefined
            ? selectSince.all({ since, limit })
            : selectBoth.all({ since, category, limit })
      ) as Array<unknown>
      return rows.map((row) => decodeRow(row as EventRow)).reverse()
    })

  return { append, list }
}

/**
 * `limit` and `cap` are counts: negative or NaN means 0 and fractions round down. `Infinity` means no limit,
 * which SQLite's LIMIT spells -1 (the clamp keeps a negative from the caller from meaning "no limit").
 */
const nonNegativeInt = (n: number) =>
  n === Number.POSITIVE_INFINITY ? -1 : n > 0 ? Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER) : 0
