import { StringDecoder } from "node:string_decoder"
import type { ContainerLogLine } from "../domain/Docker.js"

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
  // Once per line of a chatty container: no spread object and no regex on this path.
  const emit = (out: Array<ContainerLogLine>, text: string, time: string | undefined) => {
    const line = text.endsWith("\r") ? text.slice(0, -1) : text
    out.push(time === undefined ? { stream, line } : { stream, timestamp: time, line })
  }
  return {
    /**
     * Adds one message (a frame's payload, or a raw chunk). With timestamps, each message carries its own; a
     * message continuing a line (the engine splits lines over 16 KiB into several) drops its time for the line's.
     */
    push: (bytes: Buffer, out: Array<ContainerLogLine>, framed: boolean) => {
      let payload = bytes
      // The time is cut off the bytes before decoding: a character the engine split between two messages has its
      // first bytes at the end of one and the rest after the next one's time.
      if (timestamps && framed) {
        const match = timestampPrefix.exec(bytes.subarray(0, 64).toString("latin1"))
        if (match !== null) {
          if (carry === "") carryTime = match[1]
          payload = bytes.subarray(match[0].length)
        }
      }
      const text = decoder.write(payload)
      // The usual message: one whole line (framed output, no pending piece): no split needed.
      if (framed && carry === "" && text.length > 0 && text.indexOf("\n") === text.length - 1) {
        emit(out, text.slice(0, -1), carryTime)
        carryTime = undefined
        return
      }
      const parts = (carry + text).split("\n")
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
  let pending: Buffer = Buffer.alloc(0)
  return {
    push: (chunk: Buffer): Array<ContainerLogLine> => {
      const out: Array<ContainerLogLine> = []
      if (format.tty) {
        stdout.push(chunk, out, false)
        return out
      }
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      while (pending.length >= 8) {
        const size = pending.readUInt32BE(4)
        if (pending.length < 8 + size) break
        const payload = pending.subarray(8, 8 + size)
        // 1 stdout, 2 stderr (0 stdin is never sent back).
        ;(pending[0] === 2 ? stderr : stdout).push(payload, out, true)
        pending = pending.subarray(8 + size)
      }
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
