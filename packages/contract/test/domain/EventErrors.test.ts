import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  closeCodeOf,
  ErrorBody,
  EventNotFound,
  EventsTrimmed,
  errorCodeOf,
  eventsResumeErrorOfClose,
  grpcStatusOf,
  httpStatusOf,
  toWireError
} from "../../src/domain/index.js"

const since = "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"
const oldest = "0190a1b2-c3d5-7000-8000-000000000000"

describe("resume errors of the event history", () => {
  it("EventsTrimmed: 410 gone, gRPC OUT_OF_RANGE, a stream closed with 1008; its body names both ids", () => {
    const error = new EventsTrimmed({ since, oldest_id: oldest })
    assert.deepStrictEqual(
      [errorCodeOf(error), httpStatusOf("gone"), grpcStatusOf("gone"), closeCodeOf(errorCodeOf(error))],
      ["gone", 410, 11, 1008]
    )
    const encoded = Schema.encodeSync(toWireError(EventsTrimmed))(error)
    assert.deepStrictEqual(encoded, {
      error: {
        code: "gone",
        message: `events after ${since} were dropped from the history (its cap): follow again without since`,
        details: [{ reason: "EventsTrimmed", since, oldest_id: oldest }]
      }
    })
    assert.isTrue(Schema.is(ErrorBody)(encoded))
    const decoded = Schema.decodeUnknownSync(toWireError(EventsTrimmed))(encoded)
    assert.instanceOf(decoded, EventsTrimmed)
    assert.deepStrictEqual([decoded.since, decoded.oldest_id], [since, oldest])
    const none = Schema.encodeSync(toWireError(EventsTrimmed))(new EventsTrimmed({ since, oldest_id: null }))
    assert.deepStrictEqual(none.error.details, [{ reason: "EventsTrimmed", since, oldest_id: null }])
  })

  it("EventNotFound: 404 not_found, a stream closed with 1008", () => {
    const error = new EventNotFound({ since })
    assert.deepStrictEqual(
      [errorCodeOf(error), httpStatusOf("not_found"), closeCodeOf("not_found")],
      ["not_found", 404, 1008]
    )
    const decoded = Schema.decodeUnknownSync(toWireError(EventNotFound))(
      Schema.encodeSync(toWireError(EventNotFound))(error)
    )
    assert.instanceOf(decoded, EventNotFound)
    assert.strictEqual(decoded.message, `no event ${since} in the history: follow again without since`)
  })

  it("a stream's close with either message reads back as that error (without oldest_id); any other is neither", () => {
    const trimmed = eventsResumeErrorOfClose(1008, new EventsTrimmed({ since, oldest_id: oldest }).message)
    assert.instanceOf(trimmed, EventsTrimmed)
    assert.deepStrictEqual([trimmed.since, (trimmed as EventsTrimmed).oldest_id], [since, null])
    const notFound = eventsResumeErrorOfClose(1008, new EventNotFound({ since }).message)
    assert.instanceOf(notFound, EventNotFound)
    assert.strictEqual(notFound.since, since)
    const message = new EventsTrimmed({ since, oldest_id: null }).message
    for (const [code, reason] of [
      [1011, message],
      [1008, "API key revoked"],
      [1008, "client too slow"],
      [1008, `${message.slice(0, 60)}…`],
      [1008, message.replace(since, "")]
    ] as const) {
      assert.isUndefined(eventsResumeErrorOfClose(code, reason), `${code} ${reason}`)
    }
  })

  it("both messages fit a WebSocket close reason (123 bytes), where a stream that fails carries them", () => {
    for (const error of [new EventsTrimmed({ since, oldest_id: oldest }), new EventNotFound({ since })]) {
      assert.isAtMost(Buffer.byteLength(error.message), 123, error.message)
    }
  })
})
