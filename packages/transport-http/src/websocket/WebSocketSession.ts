import type { IncomingMessage } from "node:http"
import {
  ClientTooSlow,
  closeCodeOf,
  errorCodeOf,
  type RateLimited,
  ServerShuttingDown,
  UnsupportedMediaType
} from "@gatehouse-edge/core/domain"
import { storeTroubleIn } from "@gatehouse-edge/core/services"
import type { NonEmptyReadonlyArray } from "effect/Array"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Socket from "effect/socket/Socket"
import { awaitDrain } from "./AwaitDrain.js"
import { clientAddressOf } from "./ClientAddress.js"
import type { QueuedTooMuch } from "./QueuedTooMuch.js"
import { StreamCredential } from "./StreamCredential.js"
import { encodeTextFrames } from "./TextFrames.js"
import { webSocketOf } from "./TrackedWebSocket.js"
import { HeldStreamPlace, WebSocketConnections } from "./WebSocketConnections.js"
import { WebSocketPolicy } from "./WebSocketPolicy.js"

/**
 * Completed when the server begins to shut down, so WebSocket streams (which never end by themselves) close with
 * 1001 at once instead of holding the graceful shutdown until its timeout.
 */
export class ShutdownSignal extends Context.Service<ShutdownSignal, Deferred.Deferred<void>>()(
  "@gatehouse-edge/transport-http/ShutdownSignal"
) {
  static readonly layer = Layer.effect(ShutdownSignal, Deferred.make<void>())
}

/**
 * Fires {@link ShutdownSignal} when its scope closes. Built after the HTTP server (it depends on it), so it is
 * finalized first: streams get their 1001 before the server waits for in-flight requests.
 */
export const layerShutdownTrigger = Layer.effectDiscard(
  Effect.gen(function* () {
    const signal = yield* ShutdownSignal
    yield* Effect.addFinalizer(() => Deferred.succeed(signal, undefined))
  })
)

/**
 * The peer is gone (a write found the connection closed): there is no one to send a close frame to, so the
 * connection is cut. Stays inside the session; nothing about it crosses to the client.
 */
class PeerGone extends Data.TaggedError("PeerGone")<{ readonly reason: string }> {}

/**
 * The client did not answer a ping within `waitedMs`. Most often it is alive but not reading (a typed client pauses
 * its socket while its consumer lags), so the pong waits unread behind the frames: it is dropped as a slow consumer
 * (1008, a reason its client retries after), with a close frame it reads once it catches up. A peer that is really
 * gone never answers that close either, and is cut after the close grace.
 */
class PingUnanswered extends Data.TaggedError("PingUnanswered")<{ readonly waitedMs: number }> {
  override get message() {
    return `client too slow: no answer to ping within ${this.waitedMs / 1000} s`
  }
}

/** The close code and reason for a session that failed with `error`. */
const closeOf = (error: unknown): { readonly code: number; readonly reason: string } =>
  error instanceof PingUnanswered
    ? { code: closeCodeOf("slow_consumer"), reason: error.message }
    : { code: closeCodeOf(errorCodeOf(error)), reason: error instanceof Error ? error.message : "stream failed" }

// RFC 6455 limits a close reason to 123 bytes.
// A close frame's reason is at most 123 bytes of UTF-8 (RFC 6455: 125 bytes of payload, 2 of them the code).
const MAX_REASON_BYTES = 123

/**
 * `reason` cut to what a close frame holds, at a character boundary and marked with `…`. Cut by bytes: a reason of
 * 100 Cyrillic characters is 200 bytes, `ws` refuses it by throwing, and the close then fell through to a 1000 —
 * a failed stream that its client took for one that had ended.
 */
export const closeReason = (reason: string): string => {
  if (Buffer.byteLength(reason) <= MAX_REASON_BYTES) return reason
  const room = MAX_REASON_BYTES - Buffer.byteLength("…")
  let bytes = 0
  let end = 0
  for (const char of reason) {
    bytes += Buffer.byteLength(char)
    if (bytes > room) break
    end += char.length
  }
  return `${reason.slice(0, end)}…`
}

// Frames written with one system call at most; well under every drain limit, so batching never trips one.
const batchBytes = 64 * 1024

/** Consecutive runs of `frames` of at most `limit` characters each (a longer frame is a run of its own). */
export const batchesOf = (
  frames: NonEmptyReadonlyArray<string>,
  limit: number
): ReadonlyArray<NonEmptyReadonlyArray<string>> => {
  const batches: Array<[string, ...Array<string>]> = []
  let current: [string, ...Array<string>] | undefined
  let size = 0
  for (const frame of frames) {
    if (current !== undefined && size + frame.length <= limit) {
      current.push(frame)
      size += frame.length
    } else {
      current = [frame]
      size = frame.length
      batches.push(current)
    }
  }
  return batches
}

/**
 * Upgrades the current request to a WebSocket and runs `session`: it receives the client's text frames and
 * returns the frames to send. The socket closes with 1000 when the frames end; when they fail, with the close
 * code of the error's machine code (`closeCodeOf(errorCodeOf(error))`, the error's message as the reason): 1001
 * when the server shuts down, 1008 when the credential it was opened with is revoked or expires
 * ({@link StreamCredential}) and for a client that does not read or answer pings ({@link PingUnanswered}), 1011
 * on a defect. Closing by the client, a client that does not read (its queued bytes pass the policy, or those of
 * all its streams pass its budget or the server's), and a client that stops answering pings all end the session
 * and release whatever the frames stream holds (subscriptions, pollers, upstream connections). The stream's place,
 * and its bytes in those budgets, are released when its socket is gone.
 *
 * Every check that can fail with an HTTP error must run before this, so a bad request gets an error body.
 */
export const serveWebSocket = <E, R>(
  session: (incoming: Stream.Stream<string>) => Stream.Stream<string, E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  RateLimited,
  R | HttpServerRequest.HttpServerRequest | WebSocketConnections
> =>
  Effect.scoped(
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const policy = yield* WebSocketPolicy
      // The stream's place is taken before the upgrade (by the handshake already, for a declared stream), so a
      // client over a cap gets a 429 it can read.
      const place = (yield* HeldStreamPlace) ?? (yield* (yield* WebSocketConnections).acquire(clientAddressOf(request)))
      const connection = (request.source as IncomingMessage).socket
      const socket = yield* Effect.orDie(request.upgrade)
      const pull = yield* Effect.orDie(Socket.readerString(socket))
      const writer = yield* socket.writer
      const ws = webSocketOf(connection)
      if (ws === undefined) return yield* Effect.die(new Error("the HTTP server does not use TrackedWebSocket"))
      // The socket outlives the stream while its close frame waits behind what the client has not read (the grace
      // below): until it is gone the stream keeps its place, and the bytes still queued on it stay counted, so a
      // client cannot hold more by letting streams be closed and opening new ones.
      place.keepUntilGone((release) => {
        if (ws.readyState === ws.CLOSED) release()
        else ws.once("close", () => release())
      })

      const peerGone = yield* Deferred.make<void>()
      ws.once("close", () => Deferred.doneUnsafe(peerGone, Exit.void))

      // Every stream of this API speaks text; a binary frame is a client speaking another protocol. The socket's
      // reader decodes it like text, so it is refused here, ahead of the reader's own listener (prepended): from
      // then on nothing more reaches the session, which would otherwise validate and answer it before the close.
      const binary = yield* Deferred.make<never, UnsupportedMediaType>()
      let refusedBinary = false
      ws.prependListener("message", (_data, isBinary) => {
        if (isBinary && !refusedBinary) {
          refusedBinary = true
          const error = new UnsupportedMediaType({ message: "this stream takes text frames only" })
          Deferred.doneUnsafe(binary, Exit.fail(error))
        }
      })

      let answeredPing = true
      ws.on("pong", () => {
        answeredPing = true
      })
      // A socket paused by its reader (the session has 64 KiB of the client's messages still to handle, e.g.
      // documents to validate) reads nothing, pongs included: a missed pong then says the server is busy, not that
      // the peer is gone. Output-only streams drain their input, so only a session at work is ever paused.
      const heartbeat = Effect.suspend(() => {
        if (!answeredPing && !ws.isPaused) return Effect.fail(new PingUnanswered({ waitedMs: policy.pingIntervalMs }))
        answeredPing = false
        return Effect.sync(() => ws.ping())
      }).pipe(Effect.repeat(Schedule.spaced(policy.pingIntervalMs)), Effect.delay(policy.pingIntervalMs))

      // A close from the client ends the input; it is not an error of the session.
      const incoming = Stream.fromIterableEffectRepeat(pull).pipe(
        Stream.ignore,
        Stream.filter(() => !refusedBinary)
      )

      // The frames of one chunk go out together: the connection is corked while they are queued, so a burst
      // (a chatty log's lines come in the engine's chunks) costs one system call per batch, not one per frame.
      // A batch stops at `batchBytes`, so the limits below still see every client's queue grow batch by batch.
      // What is queued besides the batch just written counts against the limit, not the batch itself: a single
      // frame larger than the limit (a page of uptime for 1,000 routes is 8 MB) is sent, then drained like any other.
      let written = 0
      // Without extensions (no permessage-deflate) `ws` writes each frame to the connection as it is sent, never
      // queuing one, so a batch framed here and written to the connection in one piece sits between its frames
      // (pings, the close frame) exactly as `send` would have put it, and counts in `ws.bufferedAmount` alike.
      const framedHere = ws.extensions === ""
      // Each write is counted against the client's and the server's budgets before it is made (waiting for room
      // when there is none: see `StreamPlace`) and uncounted in its callback, when the kernel has taken it: the
      // same bytes `ws.bufferedAmount` counts, but summed over all the client's streams.
      const writeFrames = (frames: NonEmptyReadonlyArray<string>): Effect.Effect<void, PeerGone | QueuedTooMuch> => {
        const framed = framedHere ? encodeTextFrames(frames) : undefined
        const sizes = framed === undefined ? frames.map((frame) => Buffer.byteLength(frame)) : [framed.length]
        const bytes = sizes.reduce((sum, size) => sum + size, 0)
        return Effect.andThen(
          place.queue(bytes),
          Effect.suspend(() => {
            // What `send` refuses: frames after the close frame, or on a connection that is gone.
            if (ws.readyState !== ws.OPEN) {
              place.sent(bytes)
              return Effect.fail(new PeerGone({ reason: "connection lost" }))
            }
            if (framed !== undefined) {
              connection.write(framed, () => place.sent(bytes))
              return Effect.void
            }
            connection.cork()
            for (const [i, frame] of frames.entries()) {
              const size = sizes[i] ?? 0
              ws.send(frame, () => place.sent(size))
            }
            connection.uncork()
            return Effect.void
          })
        )
      }
      const writeBatch = (frames: NonEmptyReadonlyArray<string>) =>
        Effect.suspend(() => {
          // Only a frame longer than a batch is a batch of its own: every other write is checked as it always was.
          written = frames[0].length > batchBytes ? Buffer.byteLength(frames[0]) : 0
          return writeFrames(frames)
        }).pipe(
          Effect.andThen(
            Effect.suspend(() => {
              if (ws.bufferedAmount - written > policy.maxBufferedBytes) {
                return Effect.fail(new ClientTooSlow({ queued_bytes: ws.bufferedAmount }))
              }
              return ws.bufferedAmount > policy.drainAboveBytes ? awaitDrain(ws, connection, policy) : Effect.void
            })
          )
        )
      const send = (frames: NonEmptyReadonlyArray<string>) =>
        Effect.forEach(batchesOf(frames, batchBytes), writeBatch, { discard: true })

      const shutdown = Option.match(yield* Effect.serviceOption(ShutdownSignal), {
        onNone: () => Effect.never,
        onSome: (signal) => Effect.andThen(Deferred.await(signal), Effect.fail(new ServerShuttingDown()))
      })
      // Credentials are checked at the upgrade only: a stream ends (1008) when its credential is revoked or expires.
      const credentialEnded = yield* StreamCredential
      const run = Stream.runForEachArray(session(incoming), send).pipe(
        Effect.raceFirst(credentialEnded),
        Effect.raceFirst(heartbeat),
        Effect.raceFirst(shutdown),
        Effect.raceFirst(Deferred.await(binary)),
        Effect.raceFirst(Deferred.await(peerGone))
      )
      // A close frame is queued behind what the client has not read yet (bytes already written cannot be taken
      // back): a client that reads late still learns why if it does within the grace; one that never completes
      // the close handshake does not keep its connection and buffers longer than that.
      const cutAfterGrace = Effect.sync(() => {
        if (ws.readyState === ws.CLOSED) return
        // A plain unref'd timer, not a fiber: it must neither outlive the connection nor hold up the process.
        const timer = setTimeout(() => ws.terminate(), policy.closeGraceMs)
        timer.unref()
        ws.once("close", () => clearTimeout(timer))
      })
      const exit = yield* Effect.exit(run)
      if (Exit.isSuccess(exit)) {
        yield* Effect.ignore(writer.write(new Socket.CloseEvent(1000)))
        yield* cutAfterGrace
      } else {
        const failure = exit.cause.reasons.find(Cause.isFailReason)
        if (failure?.error instanceof PeerGone) {
          // Nobody to close the handshake with.
          ws.terminate()
        } else if (failure !== undefined) {
          const { code, reason } = closeOf(failure.error)
          // Never a close without the code: a write that fails with the reason is retried without it.
          yield* Effect.ignore(
            writer
              .write(new Socket.CloseEvent(code, closeReason(reason)))
              .pipe(Effect.catch(() => writer.write(new Socket.CloseEvent(code))))
          )
          yield* cutAfterGrace
          yield* Effect.logInfo(`WebSocket stream closed with ${code}: ${reason}`).pipe(
            Effect.annotateLogs({ client: clientAddressOf(request), path: request.url.split("?")[0] })
          )
        } else if (Cause.hasInterruptsOnly(exit.cause)) {
          // Interrupted: the server shuts down (the release closes with 1001) or the request's fiber was stopped.
          return yield* Effect.orDie(Effect.failCause(exit.cause))
        } else {
          // A defect. The client already has its 101, so what it gets is a 1011 close with a generic reason (or
          // what is wrong with the store, when that is it: see storeTroubleIn); the cause goes to the log (under
          // the request's id), and the access line keeps the 101 it was answered.
          const trouble = storeTroubleIn(exit.cause)
          const code = closeCodeOf(trouble === undefined ? "internal" : "unavailable")
          const reason = trouble === undefined ? "internal error" : `the server's store ${trouble.problem}`
          yield* Effect.ignore(writer.write(new Socket.CloseEvent(code, reason)))
          yield* cutAfterGrace
          yield* Effect.logError("WebSocket stream failed", exit.cause).pipe(
            Effect.annotateLogs({ client: clientAddressOf(request), path: request.url.split("?")[0] })
          )
        }
      }
      // What the client got: the handshake's 101, not the 204 of an empty response (the access log records this).
      return HttpServerResponse.empty({ status: 101 })
    })
  )

/** Runs `frames` on a WebSocket that only sends: client messages are read and ignored. */
export const streamToWebSocket = <E, R>(frames: Stream.Stream<string, E, R>) =>
  serveWebSocket((incoming) => frames.pipe(Stream.merge(Stream.drain(incoming), { haltStrategy: "left" })))
