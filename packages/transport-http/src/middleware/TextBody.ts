import { InvalidArgument, invalidUtf8Offset, UnsupportedMediaType } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"

// Text and JSON bodies must be UTF-8: a decoder would otherwise replace bad bytes with U+FFFD, and a file written
// from such a body would differ from what was sent. The body is read once; HttpApi's decoding (or a handler that
// reads its own body, `readTextBody`) uses the same cached bytes.
export const checkTextBody = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(request.headers["content-type"] ?? "")?.[1]
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    return yield* new UnsupportedMediaType({ message: `unsupported charset ${charset}: send the body as UTF-8` })
  }
  const bytes = new Uint8Array(yield* Effect.orDie(request.arrayBuffer))
  const offset = invalidUtf8Offset(bytes)
  if (offset !== undefined) {
    const message = `request body is not valid UTF-8: invalid byte 0x${bytes[offset]!.toString(16).padStart(2, "0")} at offset ${offset}`
    return yield* new InvalidArgument({ message, issues: [{ path: ["body"], message }] })
  }
})

/** The body as text, checked as {@link checkTextBody} checks it: for a handler that reads its body itself. */
export const readTextBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.andThen(checkTextBody(request), Effect.orDie(request.text))

/**
 * The most bytes the body of `request` can have: its `Content-Length` (the server reads no more than that), or
 * `limit` when it announces none (chunked) or more (the read stops there, with a 413).
 */
export const announcedBodyBytes = (request: HttpServerRequest.HttpServerRequest, limit: number): number => {
  const length = request.headers["content-length"]
  const announced = length === undefined || !/^\d+$/.test(length) ? limit : Number(length)
  return Math.min(announced, limit)
}
