import { Cause, Effect, Exit, Stream } from "effect"

/** What a stream failed with: a test failure when it died (a defect) or ended instead. */
export const failureOf = <A, E>(stream: Stream.Stream<A, E>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(Stream.runDrain(stream))
    if (Exit.isSuccess(exit)) return yield* Effect.die(new Error("expected the stream to fail, it ended"))
    const failure = exit.cause.reasons.find(Cause.isFailReason)
    if (failure === undefined)
      return yield* Effect.die(new Error(`expected a failure, got ${Cause.pretty(exit.cause)}`))
    return failure.error
  })
