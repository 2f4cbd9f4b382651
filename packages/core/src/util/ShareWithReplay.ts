import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** What the shared source sends its subscribers: items numbered from `first`, or how it ended. */
type Message<A, E> =
  | { readonly _tag: "Items"; readonly first: number; readonly items: ReadonlyArray<A> }
  | { readonly _tag: "End" }
  | { readonly _tag: "Failure"; readonly error: E }

/**
 * Runs `source` once, in the scope, for any number of subscribers, and gives each new one the last `replay`
 * items first (a log's last lines), then what comes next. Unlike `Stream.share` with a replay (which counts
 * chunks, so a line-exact replay needs one-item chunks), items travel in the chunks they come in: a burst of
 * lines reaches a subscriber as a few large chunks, not one wake-up per line.
 *
 * Items are numbered as they come; a subscriber takes its snapshot of the replay buffer after it has subscribed
 * and skips the live items the snapshot already holds, so it sees each item once, in order. The source waits for
 * the slowest subscriber once `capacity` chunks are queued for it (back-pressure reaches the source).
 */
export const shareWithReplay = <A, E>(
  source: Stream.Stream<A, E>,
  options: { readonly replay: number; readonly capacity: number }
): Effect.Effect<Stream.Stream<A, E>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const pubsub = yield* PubSub.bounded<Message<A, E>>(options.capacity)
    // The last `replay` items: those numbered from `next - recent.length` up to `next`.
    const recent: Array<A> = []
    let next = 0
    let ended: Message<A, E> | undefined
    yield* source.pipe(
      Stream.runForEachArray((items) =>
        Effect.suspend(() => {
          const first = next
          next += items.length
          recent.push(...items)
          if (recent.length > options.replay) recent.splice(0, recent.length - options.replay)
          return PubSub.publish(pubsub, { _tag: "Items", first, items })
        })
      ),
      Effect.exit,
      Effect.flatMap((exit) => {
        ended = Exit.isSuccess(exit)
          ? { _tag: "End" }
          : Exit.findErrorOption(exit).pipe((error) =>
              error._tag === "Some" ? { _tag: "Failure", error: error.value } : { _tag: "End" }
            )
        return PubSub.publish(pubsub, ended)
      }),
      Effect.forkScoped
    )
    const toStream = (message: Message<A, E>, skipBelow: number): Stream.Stream<A, E> =>
      message._tag === "Items"
        ? Stream.fromArray(message.items.slice(Math.max(0, skipBelow - message.first)))
        : message._tag === "End"
          ? Stream.empty
          : Stream.fail(message.error)
    return Stream.unwrap(
      Effect.gen(function* () {
        const subscription = yield* PubSub.subscribe(pubsub)
        const snapshot = Stream.fromArray([...recent])
        const seen = next
        if (ended !== undefined) return Stream.concat(snapshot, toStream(ended, seen))
        const live = Stream.fromSubscription(subscription).pipe(
          Stream.takeUntil((message) => message._tag !== "Items"),
          Stream.flatMap((message) => toStream(message, seen))
        )
        return Stream.concat(snapshot, live)
      })
    )
  })
