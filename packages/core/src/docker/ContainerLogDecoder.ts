import { StringDecoder } from "node:string_decoder"
import type { ContainerLogLine } from "@gatehouse-edge/contract/domain"

/** How the engine sent a container's output: raw for a TTY container, else multiplexed in 8-byte-header frames. */
export interface LogFormat {
  readonly tty: boolean
  /** The request asked for `timestamps`: each log message starts with an RFC 3339 time and a space. */
  readonly timestamps: boolean
}

// A longer line is delivered in pieces of this size: a container printing without newlines cannot grow memory.
const maxLineChars = 1024 * 1024
const timestampPrefix = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) /

type Stream = ContainerLogLine["stream"]

/** One output stream's pending line: UTF-8 decoded across chunks, the time of its first message. */
const lineAssembler = (stream: Stream, timestamps: boolean) => {
  const decoder = new StringDecoder("utf8")
  let carry = ""
  let carryTime: string | undefined
  // Whether the decoder holds no piece of a character: the last message it took ended with an ASCII byte.
  let whole = true
  // Once per line of a chatty container: no spread object and no regex on this path.
  const emit = (out: Array<ContainerLogLine>, text: string, time: string | undefined) => {
    const line = text.endsWith("\r") ? text.slice(0, -1) : text
    out.push(time === undefined ? { stream, line } : { stream, timestamp: time, line })
  }
  return {
    /**
     * Adds one message: `bytes` from `start` to `end` (a frame's payload, or a raw chunk), read in place rather
     * than cut out of the engine's chunk. With timestamps, each message carries its own; a message continuing a
     * line (the engine splits lines over 16 KiB into several) drops its time for the line's.
     */
    push: (bytes: Buffer, start: number, end: number, out: Array<ContainerLogLine>, framed: boolean) => {
      let from = start
      // The time is cut off the bytes before decoding: a character the engine split between two messages has its
      // first bytes at the end of one and the rest after the next one's time.
      if (timestamps && framed) {
        const match = timestampPrefix.exec(bytes.toString("latin1", start, Math.min(end, start + 64)))
        if (match !== null) {
          if (carry === "") carryTime = match[1]
          from = start + match[0].length
        }
      }
      // The usual message: one whole line, nothing pending (no piece of a line, none of a character): decoded
      // straight from the engine's bytes, as the decoder would have.
      if (framed && whole && carry === "" && end > from && bytes[end - 1] === 0x0a) {
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
        let line = part
        let time = carryTime
        // Raw (TTY) output is not framed: its time is at the start of each line.
        if (timestamps && !framed) {
          const match = timestampPrefix.exec(line)
          if (match !== null) {
            time = match[1]
            line = line.slice(match[0].length)
          }
        }
        emit(out, line, time)
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
      if (rest !== "") emit(out, rest, carryTime)
    }
  }
}

/**
 * Turns an engine's log stream (`GET /containers/{id}/logs`) into lines `{stream, timestamp?, line}`: multiplexed
 * frames demultiplexed (a frame may arrive split across chunks, and several in one), partial lines, lines the engine
 * split into several messages and multi-byte UTF-8 split across frames re-joined, a final line without a newline
 * kept (`end`). A TTY container's output is one raw stream, reported as stdout.
 */
export const makeLogDecoder = (format: LogFormat) => {
  const stdout = lineAssembler("stdout", format.timestamps)
  const stderr = lineAssembler("stderr", format.timestamps)
  // The start of a frame that has not fully arrived yet.
  let pending: Buffer | undefined
  return {
    push: (chunk: Buffer): Array<ContainerLogLine> => {
      const out: Array<ContainerLogLine> = []
      if (format.tty) {
        stdout.push(chunk, 0, chunk.length, out, false)
        return out
      }
      // Frames are read where they lie in the chunk (hundreds in one read of the engine's raw stream).
      const bytes = pending === undefined ? chunk : Buffer.concat([pending, chunk])
      let at = 0
      while (bytes.length - at >= 8) {
        const size = bytes.readUInt32BE(at + 4)
        if (bytes.length - at < 8 + size) break
        // 1 stdout, 2 stderr (0 stdin is never sent back).
        ;(bytes[at] === 2 ? stderr : stdout).push(bytes, at + 8, at + 8 + size, out, true)
        at += 8 + size
      }
      pending = at === bytes.length ? undefined : bytes.subarray(at)
      return out
    },
    end: (): Array<ContainerLogLine> => {
      const out: Array<ContainerLogLine> = []
      stdout.end(out)
      stderr.end(out)
      return out
    }
  }
}
