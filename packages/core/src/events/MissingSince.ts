import type { Event } from "@gatehouse-edge/contract/domain"
import { EventNotFound, EventsTrimmed } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import type { HistoryExtent } from "./EventRepository.js"

/**
 * What a read after `since` gives when `since` is not stored, told by where it falls in the history. Ids are UUIDv7,
 * in time order, and trimming drops only the oldest events (failed sign-ins also beyond their share). So an id
 * older than the oldest kept was dropped, events after it may be gone, and the client must hear it
 * (`EventsTrimmed`); so must one older than the oldest kept failed sign-in, which may be a failed sign-in dropped
 * beyond its share. Any other id was never stored here (`EventNotFound`): newer than every event, or between two
 * kept ones, it is another server's, or from a store since reset. The newest id this bus published counts as well:
 * with a cap of 0 (nothing kept) a resume from the last event is no gap.
 */
export const missingSince = (
  since: string,
  extent: HistoryExtent,
  newestPublished: string | undefined
): Effect.Effect<ReadonlyArray<Event>, EventsTrimmed | EventNotFound> => {
  const newest =
    extent.newest === undefined || (newestPublished !== undefined && newestPublished > extent.newest)
      ? newestPublished
      : extent.newest
  if (newest === undefined || since > newest) return Effect.fail(new EventNotFound({ since }))
  // The newest event itself: nothing came after it, so nothing was missed.
  if (since === newest) return Effect.succeed([])
  const trimmed =
    extent.oldest === undefined ||
    since < extent.oldest ||
    (extent.oldestFailedSignIn !== undefined && since < extent.oldestFailedSignIn)
  return trimmed
    ? Effect.fail(new EventsTrimmed({ since, oldest_id: extent.oldest ?? null }))
    : Effect.fail(new EventNotFound({ since }))
}
