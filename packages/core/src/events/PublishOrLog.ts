import type { EventInput } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import type { Events } from "./Events.js"

/**
 * Publishes an event that reports something already done (a reload applied, a health change seen, a certificate
 * loaded): a store that refuses it is a warning in the log, not a defect. The change stands without its event, and
 * the fiber that made it (a file watcher, a monitor, a provider) goes on; ending it would stop every later change.
 */
export const publishOrLog =
  (events: Events["Service"], what: string) =>
  (event: EventInput): Effect.Effect<void> =>
    events.publish(event).pipe(
      Effect.asVoid,
      Effect.catchDefect((defect) => Effect.logWarning(`${what} event not published`, defect))
    )
