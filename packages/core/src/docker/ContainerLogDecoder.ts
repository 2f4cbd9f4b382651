import { StringDecoder } from "node:string_decoder"
import type { ContainerLogLine } from "@gatehouse-edge/contract/domain"

/** How the engine sent a container's output: raw for a TTY container, else multiplexed in 8-byte-header frames. */
export interface LogFormat {
  readonly tty: boolean
  /** The request asked for `timestamps`: each log message starts with an RFC 3339 time and a space. */
  readonly timestamps: boolean
  /**
   * Leave out the line the first message belongs to (up to its output's first newline): the read is a `tail`
   * window that does not reach the log's start, so that message may be the last piece of a line the engine split.
   */
  readonly dropFirstLine?: boolean | undefined
}

// A longer line is delivered in pieces of this size: a container printing without newlines cannot grow memory.
const maxLineChars = 1024 * 1024
const timestampPrefix = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) /
// Longer than any time the prefix matches: what is looked at for one.
const timestampWindow = 64
// dockerd's log copier cuts a line longer than its 16 KiB buffer into messages of that size, each stored (and sent,
// with timestamps) as a message of its own. A TTY's raw stream has no frames to show where they are.
const enginePieceBytes = 16 * 1024

type Stream = ContainerLogLine["stream"]

/** One output stream's pending line: UTF-8 decoded across chunks, the time of its first message. */
const lineAssembler = (stream: Stream) => {
  const decoder = new StringDecoder("utf8")
  let carry = ""
  let carryTime: string | undefined
  // Whether the decoder holds no piece of a character: the last message it took ended with an ASCII byte.
  let whole = true
  // Until this output's next newline, bytes are left out (see `LogFormat.dropFirstLine`).
  let dropping = false
  // Once per line of a chatty container: no spread object and no regex on this path.
  const emit = (out: Array<ContainerLogLine>, text: string, time: string | undefined) => {
    const line = text.endsWith("\r") ? text.slice(0, -1) : text
    out.push(time === undefined ? { stream, line } : { stream, timestamp: time, line })
  }
  return {
    /** Leaves out what this output sends up to and including its next newline. */
    dropLine: () => {
      dropping = true
    },
    /**
     * Adds `bytes` from `start` to `end` (a message's text, or part of it), read in place rather than cut out of
     * the engine's chunk. `time` is the time of a message they begin: the line's time if they begin a line too (a
     * message continuing a line the engine split drops its time for the line's).
     */
    push: (bytes: Buffer, start: number, end: number, out: Array<ContainerLogLine>, time: string | undefined) => {
      let from = start
      if (time !== undefined && carry === "") carryTime = time
      if (dropping) {
        const newline = bytes.subarray(from, end).indexOf(0x0a)
        if (newline === -1) return
        dropping = false
        carryTime = undefined
        from += newline + 1
      }
      // The usual message: one whole line, nothing pending (no piece of a line, none of a character): decoded
      // straight from the engine's bytes, as the decoder would have.
      if (whole && carry === "" && end > from && bytes[end - 1] === 0x0a) {
        const text = bytes.toString("utf8", from, end - 1)
        if (text.indexOf("\n") === -1) {
          emit(out, text, carryTime)
          carryTime = undefined
          return
        }
      }
      if (end > from) whole = bytes[end - 1]! < 0x80
      const parts = (carry + decoder.write(bytes.subarray(from, end))).split("\n")
      carry = parts.pop() ?? ""
      for (const part of parts) {
        emit(out, part, carryTime)
        carryTime = undefined
      }
      while (carry.length > maxLineChars) {
        emit(out, carry.slice(0, maxLineChars), carryTime)
        carry = carry.slice(maxLineChars)
      }
    },
    /** The last line when the output did not end with a newline. */
    end: (out: Array<ContainerLogLine>) => {
      const rest = carry + decoder.end()
      carry = ""
      if (rest !== "" && !dropping) emit(out, rest, carryTime)
    }
  }
}

/** The time a message starts with, and where its text starts; `undefined` when it starts with none. */
const messageTime = (bytes: Buffer, start: number, end: number) => {
  const match = timestampPrefix.exec(bytes.toString("latin1", start, Math.min(end, start + timestampWindow)))
  return match === null ? undefined : { time: match[1]!, length: match[0].length }
}

const timeCharacters = /^[\dT:.Z+-]*$/

/** Whether the bytes from `start` on may be the start of a message's time, cut off by the end of the chunk. */
const isCutTime = (bytes: Buffer, start: number) =>
  bytes.length - start < timestampWindow && timeCharacters.test(bytes.toString("latin1", start))

/**
 * Turns an engine's log stream (`GET /containers/{id}/logs`) into lines `{stream, timestamp?, line}`: multiplexed
 * frames demultiplexed (a frame may arrive split across chunks, and several in one), partial lines, lines the engine
 * split into several messages and multi-byte UTF-8 split across messages re-joined, a final line without a newline
 * kept (`end`). A TTY container's output is one raw stream, reported as stdout; it is cut into the engine's
 * messages as dockerd cut it (see `enginePieceBytes`), so the time the engine puts before each 16 KiB piece of a
 * long line is taken off it too. `messages` counts the engine's messages taken so far (what its `tail` counts).
 */
export const makeLogDecoder = (format: LogFormat) => {
  const stdout = lineAssembler("stdout")
  const stderr = lineAssembler("stderr")
  let messages = 0
  // The start of a frame that has not fully arrived yet.
  let pending: Buffer | undefined
  // TTY: the bytes of the current message's text taken so far; `undefined` at a message's start.
  let inMessage: number | undefined
  // TTY: the start of a message whose time has not fully arrived yet.
  let held: Buffer | undefined

  // Each message opens with its time; the first one of the read may open with the end of a line (see `LogFormat`).
  const opened = (output: ReturnType<typeof lineAssembler>) => {
    if (messages === 0 && format.dropFirstLine === true) output.dropLine()
    messages++
  }

  const pushFramed = (chunk: Buffer, out: Array<ContainerLogLine>) => {
    // Frames are read where they lie in the chunk (hundreds in one read of the engine's raw stream).
    const bytes = pending === undefined ? chunk : Buffer.concat([pending, chunk])
    let at = 0
    while (bytes.length - at >= 8) {
      const size = bytes.readUInt32BE(at + 4)
      if (bytes.length - at < 8 + size) break
      // 1 stdout, 2 stderr (0 stdin is never sent back).
      const output = bytes[at] === 2 ? stderr : stdout
      const start = at + 8
      const end = start + size
      const time = format.timestamps ? messageTime(bytes, start, end) : undefined
      opened(output)
      output.push(bytes, time === undefined ? start : start + time.length, end, out, time?.time)
      at = end
    }
    pending = at === bytes.length ? undefined : bytes.subarray(at)
  }

  const pushRaw = (chunk: Buffer, out: Array<ContainerLogLine>) => {
    const bytes = held === undefined ? chunk : Buffer.concat([held, chunk])
    held = undefined
    let at = 0
    while (at < bytes.length) {
      let time: string | undefined
      if (inMessage === undefined) {
        if (format.timestamps) {
          const prefix = messageTime(bytes, at, bytes.length)
          // A time the end of the chunk cut off (no space after it yet): read again with the next chunk.
          if (prefix === undefined && isCutTime(bytes, at)) {
            held = Buffer.from(bytes.subarray(at))
            return
          }
          if (prefix !== undefined) {
            time = prefix.time
            at += prefix.length
          }
        }
        opened(stdout)
        inMessage = 0
      }
      // A message ends with its line, or with the engine's piece of a longer one.
      const pieceEnd = Math.min(bytes.length, at + enginePieceBytes - inMessage)
      const newline = bytes.subarray(at, pieceEnd).indexOf(0x0a)
      const end = newline === -1 ? pieceEnd : at + newline + 1
      stdout.push(bytes, at, end, out, time)
      inMessage += end - at
      if (newline !== -1 || inMessage === enginePieceBytes) inMessage = undefined
      at = end
    }
  }

  return {
    push: (chunk: Buffer): Array<ContainerLogLine> => {
      const out: Array<ContainerLogLine> = []
      if (format.tty) pushRaw(chunk, out)
      else pushFramed(chunk, out)
      return out
    },
    end: (): Array<ContainerLogLine> => {
      const out: Array<ContainerLogLine> = []
      // What looked like the start of a time was not one: text of its own.
      if (held !== undefined) {
        opened(stdout)
        stdout.push(held, 0, held.length, out, undefined)
        held = undefined
      }
      stdout.end(out)
      stderr.end(out)
      return out
    },
    /** The engine's messages taken so far: frames, or a TTY's lines and 16 KiB pieces of longer ones. */
    messages: (): number => messages
  }
}
