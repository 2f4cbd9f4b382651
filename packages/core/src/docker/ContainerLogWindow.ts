import type { Readable } from "node:stream"
import { type ContainerLogLine, DockerFailed, toEngineTime } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { readBoundedBody } from "./BoundedBody.js"
import { makeLogDecoder } from "./ContainerLogDecoder.js"
import type { EngineError, LogQuery } from "./Docker.js"

/** The lines a log read or follow gives when the query says no `limit`. */
export const defaultLimit = 100
// How far back a one-output read of the last lines looks (see `readLogWindow`): a container that wrote this many
// lines to one output since its last line to the other has no more of the latter to show.
const maxTailWindow = 10_000

/** The engine's side of a log read: one container of one engine. */
export interface LogSource {
  readonly host: string
  readonly id: string
  /** The engine's raw answer to a GET of `path`. */
  readonly stream: (path: string) => Effect.Effect<Readable, EngineError>
}

/** The last lines of a container's log as one read found them, and how far back the engine had to read. */
export interface LogWindow {
  /** The last `limit` lines of the outputs asked for. */
  readonly lines: ReadonlyArray<ContainerLogLine>
  /** The engine `tail` (in its messages, of both outputs) that reaches back to the first of them. */
  readonly tail: number
  /** The wanted lines in that tail, first line left out as below (`lines` are the last `limit` of them). */
  readonly inWindow: number
  /**
   * Whether the tail reached the log's start. Else its first message may be the last piece of a line the engine
   * split (dockerd cuts lines at 16 KiB and its `tail` counts the pieces), so that line is left out.
   */
  readonly fromStart: boolean
}

/** Both outputs, for a query of one: the engine's `tail` would otherwise count lines it then leaves out. */
const bothOutputs = (query: LogQuery): LogQuery => ({ ...query, stdout: true, stderr: true })

const logOptions = (query: LogQuery, tail: number) => ({
  stdout: query.stdout ?? true,
  stderr: query.stderr ?? true,
  timestamps: query.timestamps ?? false,
  tail,
  // Checked first (`logTimeProblem`): each is a time the engines take once converted.
  ...(query.since === undefined ? {} : { since: toEngineTime(query.since) ?? query.since }),
  ...(query.until === undefined ? {} : { until: toEngineTime(query.until) ?? query.until })
})

/** A query string as dockerode writes one (`querystring.stringify`: booleans as `true`/`false`). */
const queryOf = (options: Readonly<Record<string, string | number | boolean>>) =>
  new URLSearchParams(Object.entries(options).map(([k, v]): [string, string] => [k, String(v)])).toString()

/** The engine's log path for the last `tail` messages of both outputs (filtered here: see `bothOutputs`). */
const logsPath = (id: string, query: LogQuery, tail: number, follow: boolean) =>
  `/containers/${encodeURIComponent(id)}/logs?${queryOf({ ...logOptions(bothOutputs(query), tail), follow })}`

/** Whether a line is of an output the query asks for. */
const wantedBy = (query: LogQuery) => (line: ContainerLogLine) =>
  line.stream === "stdout" ? query.stdout !== false : query.stderr !== false

/**
 * Reads the last `limit` lines of the outputs asked for (see {@link LogWindow}). The engine's `tail` counts its
 * messages of both outputs before it leaves one out (Docker and Podman alike), so the last line of stdout alone
 * could come back as nothing: both are read and filtered here. It also counts the 16 KiB pieces of a long line, so
 * one message more than asked for is read, and the first line left out unless the log starts there: the window
 * widens until it holds `limit` wanted lines or reaches the log's start. A window is held whole, so none is read
 * past `maxBytes`: the answer is then the widest window that fit (the newest lines, fewer of them), narrowed from
 * the first one if even that was too large.
 */
export const readLogWindow = Effect.fnUntraced(function* (
  source: LogSource,
  query: LogQuery,
  tty: boolean,
  maxBytes: number
): Effect.fn.Return<LogWindow, EngineError> {
  const limit = query.limit ?? defaultLimit
  const wanted = wantedBy(query)
  // A TTY has one output, read as stdout: without stdout there is nothing to look back for.
  if (tty && query.stdout === false) return { lines: [], tail: limit, inWindow: 0, fromStart: true }
  const timestamps = query.timestamps ?? false
  let tail = limit + 1
  // The widest window read that fit, and whether a wider one did not (then no window grows past it).
  let fitted: LogWindow | undefined
  let overflowed = false
  for (;;) {
    // The raw body, not dockerode's: it parses a body that happens to be JSON (a TTY log whose last lines are
    // one JSON value) and hands back an object instead of the bytes.
    const bytes = yield* Effect.flatMap(
      source.stream(logsPath(source.id, query, tail, false)),
      readBoundedBody(source.host, maxBytes)
    )
    if (Option.isNone(bytes)) {
      overflowed = true
      if (fitted !== undefined) return fitted
      // Not even one message fits (a TTY line without end): there is no last line to give.
      if (tail === 1) {
        return yield* new DockerFailed({
          host: source.host,
          status: 200,
          detail: `its last log message is larger than the ${maxBytes} bytes a log read holds`
        })
      }
      tail = Math.max(1, Math.floor(tail / 2))
      continue
    }
    const decode = (dropFirstLine: boolean) => {
      const decoder = makeLogDecoder({ tty, timestamps, dropFirstLine })
      const lines = [...decoder.push(bytes.value), ...decoder.end()]
      return { lines, messages: decoder.messages() }
    }
    let window = decode(true)
    const fromStart = window.messages < tail
    // The first message is the log's first: no piece of a line, so its line is one to give.
    if (fromStart) window = decode(false)
    const kept = window.lines.filter(wanted)
    fitted = { lines: kept.slice(-limit), tail, inWindow: kept.length, fromStart }
    if (overflowed || kept.length >= limit || fromStart || tail >= maxTailWindow) return fitted
    tail = Math.min(tail * 4, maxTailWindow)
  }
})

/**
 * How a follow starts where a window read found the last lines: the engine's path (from the same `tail`), a
 * decoder that leaves out the same first line, and what to keep of the lines (the wanted ones, from the window's
 * last `limit` on).
 */
export const followFromWindow = (id: string, query: LogQuery, tty: boolean, window: LogWindow) => {
  const limit = query.limit ?? defaultLimit
  return {
    path: logsPath(id, query, window.tail, true),
    decoder: makeLogDecoder({ tty, timestamps: query.timestamps ?? false, dropFirstLine: !window.fromStart }),
    keep: <E>(lines: Stream.Stream<ContainerLogLine, E>) =>
      lines.pipe(Stream.filter(wantedBy(query)), Stream.drop(Math.max(0, window.inWindow - limit)))
  }
}
