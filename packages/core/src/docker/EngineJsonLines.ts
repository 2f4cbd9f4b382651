import { DockerFailed } from "@gatehouse-edge/contract/domain"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** The longest line of a JSON stream held while its end has not come. */
export const maxLineChars = 1024 * 1024

// Each line one JSON object (a stats sample, an event); anything else is not an answer we understand.
const decodeObject = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)))

/**
 * Splits an engine's newline-delimited JSON (the stats and events streams) across chunks. A line that is not a JSON
 * object is the engine's answer not understood: a `DockerFailed` for the stream to fail with (and be opened again
 * where it is retried), rather than an exception that would kill the stream's reader and leave its watchers
 * waiting. The line itself is not quoted: it is the engine's text, and the error reaches API callers.
 */
export const makeJsonLines = <A>(host: string) => {
  let carry = ""
  return (chunk: Buffer): ReadonlyArray<A> | DockerFailed => {
    const parts = (carry + chunk.toString("utf8")).split("\n")
    carry = parts.pop() ?? ""
    // What is held of a line not ended yet is bounded: a stats sample is a few KiB, an event less.
    if (carry.length > maxLineChars) {
      return new DockerFailed({
        host,
        status: 200,
        detail: `its stream carried a line longer than ${maxLineChars} characters`
      })
    }
    const values: Array<A> = []
    for (const line of parts) {
      if (line.trim() === "") continue
      const value = decodeObject(line)
      if (Option.isNone(value)) {
        return new DockerFailed({ host, status: 200, detail: "its stream carried a line that is not a JSON object" })
      }
      values.push(value.value as A)
    }
    return values
  }
}

/** A line of a stream that is not a JSON object (or longer than {@link maxLineChars}), skipped: for the log. */
export class SkippedLine {
  constructor(
    /** Its first characters, as the engine sent them. */
    readonly head: string,
    /** Its length in characters (of a line too long: at least {@link maxLineChars}). */
    readonly length: number
  ) {}
}

const headChars = 120

/**
 * {@link makeJsonLines} for a stream that is resumed from where it broke (the events): a line not understood is
 * passed on as a {@link SkippedLine} and the stream goes on. Failing there would not help: the engine sends the same
 * line again after every reopen from the same second, and the events after it would never come through.
 */
export const makeLenientJsonLines = <A>() => {
  let carry = ""
  // Characters dropped so far of a line too long to hold, until its end comes.
  let dropping: { head: string; length: number } | undefined
  return (chunk: Buffer): ReadonlyArray<A | SkippedLine> => {
    const out: Array<A | SkippedLine> = []
    let text = carry + chunk.toString("utf8")
    carry = ""
    if (dropping !== undefined) {
      const end = text.indexOf("\n")
      if (end === -1) {
        dropping.length += text.length
        return out
      }
      out.push(new SkippedLine(dropping.head, dropping.length + end))
      dropping = undefined
      text = text.slice(end + 1)
    }
    const parts = text.split("\n")
    const rest = parts.pop() ?? ""
    for (const line of parts) {
      if (line.trim() === "") continue
      const value = decodeObject(line)
      out.push(Option.isSome(value) ? (value.value as A) : new SkippedLine(line.slice(0, headChars), line.length))
    }
    if (rest.length > maxLineChars) dropping = { head: rest.slice(0, headChars), length: rest.length }
    else carry = rest
    return out
  }
}
