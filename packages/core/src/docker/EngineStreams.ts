import { DockerFailed, DockerHostUnreachable } from "@gatehouse-edge/contract/domain"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { EngineError } from "./Docker.js"

// Items queued for a slow consumer; beyond that the pump waits, and the engine's stream is paused (TCP then holds
// the engine back) once this much is read but not yet decoded. Counted in bytes: the engine sends a log's every
// line as its own HTTP chunk, so a count of chunks would pause it every few lines.
const queueSize = 2048
const pauseAboveBytes = 1024 * 1024
const resumeBelowBytes = 256 * 1024

type Event =
  | { readonly _tag: "Chunk"; readonly chunk: Buffer }
  | { readonly _tag: "End" }
  | { readonly _tag: "Error"; readonly error: Error }

/** Moves the readable's chunks into the queue as decoded items, pausing the readable while the queue is full. */
const pump = <A>(
  host: string,
  readable: NodeJS.ReadableStream,
  queue: Queue.Queue<A, EngineError | Cause.Done>,
  decode: (chunk: Buffer) => ReadonlyArray<A> | DockerFailed,
  flush: () => ReadonlyArray<A>,
  stillThere: Effect.Effect<void, EngineError>
) =>
  Effect.gen(function* () {
    const pending: Array<Event> = []
    let pendingBytes = 0
    let paused = false
    let wake: (() => void) | undefined
    const push = (event: Event) => {
      pending.push(event)
      if (event._tag === "Chunk") pendingBytes += event.chunk.length
      if (!paused && pendingBytes > pauseAboveBytes) {
        paused = true
        readable.pause()
      }
      const w = wake
      wake = undefined
      w?.()
    }
    readable.on("data", (chunk: Buffer) => push({ _tag: "Chunk", chunk }))
    readable.on("end", () => push({ _tag: "End" }))
    readable.on("error", (error: Error) => push({ _tag: "Error", error }))
    // A readable handed over paused (`openEngineStream`) flows from here; one that failed before its listeners
    // were attached (a connection cut right after the head) is a cut stream, not one that waits forever.
    const { destroyed, errored } = readable as NodeJS.ReadableStream & { destroyed?: boolean; errored?: Error | null }
    if (destroyed === true) push({ _tag: "Error", error: errored ?? new Error("connection closed") })
    else readable.resume()
    const shift = () => {
      const event = pending.shift()
      if (event?._tag === "Chunk") pendingBytes -= event.chunk.length
      if (paused && pendingBytes < resumeBelowBytes) {
        paused = false
        readable.resume()
      }
      return event
    }
    const next = Effect.callback<Event>((resume) => {
      const take = () => {
        const event = shift()
        if (event === undefined) {
          wake = take
          return
        }
        resume(Effect.succeed(event))
      }
      take()
      return Effect.sync(() => {
        wake = undefined
      })
    })
    while (true) {
      const event = yield* next
      if (event._tag === "Chunk") {
        // The engine flushes every log message as its own HTTP chunk: the chunks already read are decoded and
        // offered together, one queue operation for a burst rather than one per line.
        const items: Array<A> = []
        let refused: DockerFailed | undefined
        for (let chunk: Buffer | undefined = event.chunk; chunk !== undefined; ) {
          const decoded = decode(chunk)
          if (decoded instanceof DockerFailed) {
            refused = decoded
            break
          }
          for (const item of decoded) items.push(item)
          chunk = pending[0]?._tag === "Chunk" ? (shift() as { readonly chunk: Buffer }).chunk : undefined
        }
        if (items.length > 0) yield* Queue.offerAll(queue, items)
        // An answer not understood ends the stream as a failure its watchers hear (and a retry may open it again).
        if (refused !== undefined) return yield* Queue.fail(queue, refused)
      } else if (event._tag === "End") {
        const rest = flush()
        if (rest.length > 0) yield* Queue.offerAll(queue, rest)
        // A daemon that shuts down ends its streams cleanly too: only an engine that still answers ended it.
        const alive = yield* Effect.result(stillThere)
        if (alive._tag === "Failure") return yield* Queue.fail(queue, alive.failure)
        return yield* Queue.end(queue)
      } else {
        // The connection was cut before the response ended: the daemon went away in the middle of the stream.
        // The socket's own words (an address, a path) are for the log; the stream's watchers hear what happened.
        const cut = new DockerHostUnreachable({ host, detail: "the stream was cut" })
        yield* Effect.logWarning(`${cut.message} (${event.error.message})`)
        return yield* Queue.fail(queue, cut)
      }
    }
  })

/**
 * A Node readable of the engine (a stats or logs response) as a Stream of what `decode` makes of each chunk, with
 * back-pressure; interrupting the stream destroys the readable, which closes the engine's stream. A response that
 * ends while the engine still answers is the end of the stream (the container stopped); a connection cut before
 * it ends, or an end because the daemon is going away, fails with `DockerHostUnreachable`.
 */
export const fromEngineStream = <A>(options: {
  readonly host: string
  readonly open: Effect.Effect<NodeJS.ReadableStream, EngineError>
  /** What a chunk holds, or the failure of a stream whose answer is not understood (see `makeJsonLines`). */
  readonly decode: (chunk: Buffer) => ReadonlyArray<A> | DockerFailed
  readonly flush?: () => ReadonlyArray<A>
  /** Asked when the response ends: fails when the engine itself went away (then the stream fails too). */
  readonly stillThere: Effect.Effect<void, EngineError>
}): Stream.Stream<A, EngineError> =>
  Stream.callback<A, EngineError>(
    Effect.fnUntraced(function* (queue) {
      // The open may wait on an engine that never answers (up to the call timeout): it stays interruptible, so a
      // reader that leaves (a watcher gone, the server stopping) does not wait for it; an open given up closes its
      // connection itself.
      const readable = yield* Effect.acquireRelease(Effect.interruptible(options.open), (r) =>
        Effect.sync(() => (r as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.())
      )
      yield* Effect.forkScoped(
        pump(options.host, readable, queue, options.decode, options.flush ?? (() => []), options.stillThere)
      )
    }),
    { bufferSize: queueSize, strategy: "suspend" }
  )
