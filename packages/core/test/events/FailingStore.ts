import type { Event, EventInput } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Stream } from "effect"
import { Events } from "../../src/events/Events.js"

/**
 * Events over a store the test can make fail: while `store.failures` is above 0, a publish dies, as
 * `EventRepository` does on a storage failure (its writes are `orDie`). What is published is kept in order.
 */
export const failingStore = () => {
  const store = { failures: 0, published: [] as Array<Event> }
  const publish = (input: EventInput) =>
    Effect.suspend(() => {
      if (store.failures > 0) {
        store.failures--
        return Effect.die(new Error("SQLITE_FULL: database or disk is full"))
      }
      const event = { ...input, id: String(store.published.length), timestamp: new Date(0).toISOString() } as Event
      store.published.push(event)
      return Effect.succeed(event)
    })
  const events = Events.of({
    publish,
    transaction: () => Effect.die("not used"),
    history: () => Effect.succeed(store.published),
    follow: () => Stream.empty
  })
  return { store, events, layer: Layer.succeed(Events)(events) }
}
