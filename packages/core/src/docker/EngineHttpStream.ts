import type { Duplex } from "node:stream"
import { Readable } from "node:stream"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { EngineNoAnswer } from "./EngineFailure.js"
import { type BodyFraming, framingOf, makeBodyDecoder } from "./ResponseBody.js"
import { parseResponseHead } from "./ResponseHead.js"

/**
 * The engine answered a stream request with an error status. Shaped as dockerode's errors are (`statusCode`,
 * `json.message`), so one mapping (`DockerEngine.call`'s) turns both into `DockerFailed`.
 */
export class EngineErrorStatus extends Data.TaggedError("EngineErrorStatus")<{
  readonly statusCode: number
  readonly json: { readonly message: string } | null
  readonly message: string
}> {}

// An engine's error body is one short JSON object; more is not read.
const maxErrorBodyBytes = 64 * 1024
const decodeEngineMessage = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ message: Schema.String })))
const ignore = () => {}

/** The status line and headers, and the bytes read past them; the connection is left paused. */
const receiveHead = (socket: Duplex) =>
  Effect.callback<{ readonly status: number; readonly framing: BodyFraming; readonly rest: Buffer }, Error>(
    (resume) => {
      let bytes: Buffer = Buffer.alloc(0)
      const onData = (chunk: Buffer) => {
        bytes = bytes.length === 0 ? chunk : Buffer.concat([bytes, chunk])
        const head = parseResponseHead(bytes)
        if (head._tag === "Incomplete") return
        detach()
        socket.pause()
        if (head._tag === "Malformed") {
          return resume(
            Effect.fail(new EngineNoAnswer({ kind: "not_http", message: `not an HTTP response: ${head.reason}` }))
          )
        }
        const framing = framingOf(head.headers)
        if (framing._tag === "Malformed") {
          return resume(Effect.fail(new EngineNoAnswer({ kind: "not_http", message: "unsupported body framing" })))
        }
        resume(Effect.succeed({ status: head.status, framing, rest: bytes.subarray(head.bodyStart) }))
      }
      const onEnd = () => {
        detach()
        resume(
          Effect.fail(
            new EngineNoAnswer({ kind: "closed", message: "the engine closed the connection before answering" })
          )
        )
      }
      const onError = (error: Error) => {
        detach()
        resume(Effect.fail(error))
      }
      const detach = () => {
        socket.off("data", onData)
        socket.off("end", onEnd)
        socket.off("error", onError)
      }
      socket.on("data", onData)
      socket.on("end", onEnd)
      socket.on("error", onError)
      return Effect.sync(detach)
    }
  )

/** An error response's body (at most 64 KiB of it), as the engine's message. */
const readErrorMessage = (socket: Duplex, framing: BodyFraming) =>
  Effect.callback<string>((resume) => {
    const decoder = makeBodyDecoder(framing)
    const pieces: Array<Buffer> = []
    let size = 0
    const finish = () => {
      socket.off("data", onData)
      socket.off("end", finish)
      socket.off("close", finish)
      const text = Buffer.concat(pieces).toString("utf8")
      resume(Effect.succeed(Option.match(decodeEngineMessage(text), { onNone: () => text, onSome: (b) => b.message })))
    }
    const onData = (chunk: Buffer) => {
      const piece = decoder.push(chunk)
      if (piece._tag === "Malformed") return finish()
      for (const data of piece.data) {
        if (size < maxErrorBodyBytes) pieces.push(data.subarray(0, maxErrorBodyBytes - size))
        size += data.length
      }
      if (piece.done || size >= maxErrorBodyBytes) finish()
    }
    socket.on("data", onData)
    socket.on("end", finish)
    socket.on("close", finish)
    socket.resume()
    return Effect.sync(() => {
      socket.off("data", onData)
      socket.off("end", finish)
      socket.off("close", finish)
    })
  })

/**
 * A body with a length or chunked framing (an engine behind a proxy may answer so even an HTTP/1.0 request) as a
 * readable of its bytes, ending where the framing says; a connection that closes before that errors it.
 */
const framedBody = (socket: Duplex, framing: BodyFraming): Readable => {
  const decoder = makeBodyDecoder(framing)
  const body = new Readable({
    read: () => {
      socket.resume()
    },
    destroy: (error, callback) => {
      socket.destroy()
      callback(error)
    }
  })
  socket.on("data", (chunk: Buffer) => {
    const piece = decoder.push(chunk)
    if (piece._tag === "Malformed") return body.destroy(new Error(`malformed response body: ${piece.reason}`))
    if (piece.data.length > 0 && !body.push(piece.data.length === 1 ? piece.data[0] : Buffer.concat(piece.data))) {
      socket.pause()
    }
    if (piece.done) {
      body.push(null)
      socket.destroy()
    }
  })
  socket.on("end", () => {
    if (!decoder.complete(true)) body.destroy(new Error("the response ended before its body did"))
  })
  socket.on("error", (error: Error) => body.destroy(error))
  return body
}

/**
 * Opens a stream of the engine (`GET path`) on a connection of its own and gives its body as a paused readable.
 *
 * Why not node's HTTP client: dockerd flushes every log message, so an HTTP/1.1 follow arrives as one chunk per
 * line and node's parser makes each a `data` event of its own (~1 µs a line at 200,000 lines/s). Asked in HTTP/1.0,
 * the engine cannot chunk: it sends the raw (multiplexed or TTY) stream and closes the connection at its end, and
 * each read of the socket (up to 64 KiB, hundreds of lines) is one `data` event. Only the status line and headers
 * are parsed here; a response framed anyway (a proxy in between) is de-chunked. An error status fails with the
 * engine's message; no answer at all fails with the socket's error, as dockerode's calls do.
 *
 * Destroying the readable closes the connection, which ends the engine's stream.
 */
export const openEngineStream = (connect: () => Duplex, path: string): Effect.Effect<Readable, Error> =>
  Effect.suspend(() => {
    const socket = connect()
    // Errors are read by whoever listens at the moment (the head's reader, then the stream's pump); between them
    // one must not crash the process. The pump finds such a socket already destroyed (see `EngineStreams`).
    socket.on("error", ignore)
    socket.write(`GET ${path} HTTP/1.0\r\nHost: docker\r\n\r\n`)
    return receiveHead(socket).pipe(
      Effect.flatMap(({ status, framing, rest }): Effect.Effect<Readable, Error> => {
        if (rest.length > 0) socket.unshift(rest)
        if (status >= 200 && status < 300) {
          return Effect.succeed(framing._tag === "UntilClose" ? socket : framedBody(socket, framing))
        }
        return Effect.flatMap(readErrorMessage(socket, framing), (message) =>
          Effect.fail(new EngineErrorStatus({ statusCode: status, json: { message }, message }))
        )
      }),
      Effect.onError(() => Effect.sync(() => socket.destroy()))
    )
  })
