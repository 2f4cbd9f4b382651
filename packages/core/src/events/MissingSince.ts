import type { Event } from "@gatehouse-edge/contract/domain"
import { EventNotFound, EventsTrimmed } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import type { HistoryExtent } from "./EventRepository.js"
import { eventShares, followsShare } from "./EventShares.js"

/** The newest id the history ever held: the newest kept, or with a cap of 0 the newest dropped. */
export const newestEver = (extent: HistoryExtent): string | undefined =>
  extent.trimmedThrough !== undefined && (extent.newest === undefined || extent.trimmedThrough > extent.newest)
    ? extent.trimmedThrough
    : extent.newest

/**
 * What a read after `since` gives when `since` is not stored, told by where it falls in what the history ever held.
 * Ids are UUIDv7, so in time order, and each is greater than every id before it (a generator seeded with the newest
 * ever held: also across a restart, a clock set back, a `TestClock` at 0); trimming drops only the oldest events,
 * and failed sign-ins and new or expired auth requests beyond their shares, marking the newest of each it drops. So:
 * - outside [first, newest] ever held (older than the store's first event, newer than its last): never an event
 *   here, from another server, a store since reset, or made up: `EventNotFound`;
 * - the newest ever held (with `events.history: 0` it is not kept): nothing came after it, nothing was missed;
 * - older than every kept event (with a cap of 0, any other in range: nothing is kept), or at most the newest
 *   event dropped beyond a share: it was ours and dropped, events after it may be gone too: `EventsTrimmed`;
 * - between kept events: never stored here (`EventNotFound`).
 */
export const missingSince = (
  since: string,
  extent: HistoryExtent
): Effect.Effect<ReadonlyArray<Event>, EventsTrimmed | EventNotFound> => {
  const newest = newestEver(extent)
  if (newest === undefined || extent.first === undefined || since > newest || since < extent.first) {
    return Effect.fail(new EventNotFound({ since }))
  }
  if (since === newest) return Effect.succeed([])
  const trimmed =
    extent.oldest === undefined ||
    since < extent.oldest ||
    eventShares.some((share) => {
      const mark = extent[share.extent]
      return mark !== undefined && since <= mark
    })
  return trimmed
    ? Effect.fail(new EventsTrimmed({ since, oldest_id: extent.oldest ?? null }))
    : Effect.fail(new EventNotFound({ since }))
}

/**
 * What a read of one category after `since` gives when `since` is not stored: `page`, the events of `category`
 * after it read before `categoryMark` and `extent` (marks only grow, so a trim in between can only make a gap).
 * Other categories' events push a follower's last event out of the history while none of its own after it goes:
 * the page is whole unless the cap dropped an event of `category` newer than `since` (`categoryMark`, see
 * `EventRepository.categoryTrimmedThrough`), or `since` is at most the newest event dropped beyond a share the
 * category includes (as {@link missingSince}). Outside what the history ever held, `since` was never an event
 * here: `EventNotFound`. Within it, one never stored is not told from one dropped: nothing after it is missing.
 */
export const missingSinceOfCategory = (
  since: string,
  category: string,
  page: ReadonlyArray<Event>,
  extent: HistoryExtent,
  categoryMark: string | undefined
): Effect.Effect<ReadonlyArray<Event>, EventsTrimmed | EventNotFound> => {
  const newest = newestEver(extent)
  if (newest === undefined || extent.first === undefined || since > newest || since < extent.first) {
    return Effect.fail(new EventNotFound({ since }))
  }
  if (since === newest) return Effect.succeed(page)
  const trimmed =
    (categoryMark !== undefined && categoryMark > since) ||
    eventShares.some((share) => {
      const mark = extent[share.extent]
      return followsShare(category, share) && mark !== undefined && since <= mark
    })
  return trimmed ? Effect.fail(new EventsTrimmed({ since, oldest_id: extent.oldest ?? null })) : Effect.succeed(page)
}

/**
 * Whether a page read after a stored `since` is whole. Trimming keeps every event after a kept one, except the
 * events of a share beyond it (failed sign-ins, new and expired auth requests): a client that follows them (every
 * category, or theirs) and resumes from before the newest one dropped has missed it, and hears so as from any
 * other gap (`EventsTrimmed`), never a silent hole.
 */
export const checkedPage = (
  since: string,
  category: string | undefined,
  page: ReadonlyArray<Event>,
  extent: HistoryExtent
): Effect.Effect<ReadonlyArray<Event>, EventsTrimmed> =>
  eventShares.some((share) => {
    const mark = extent[share.extent]
    return followsShare(category, share) && mark !== undefined && since < mark
  })
    ? Effect.fail(new EventsTrimmed({ since, oldest_id: extent.oldest ?? null }))
    : Effect.succeed(page)

/** Whether a read of `category` (`undefined`: every one) includes the events of a share, which may leave gaps. */
export const followsShares = (category: string | undefined): boolean =>
  eventShares.some((share) => followsShare(category, share))
