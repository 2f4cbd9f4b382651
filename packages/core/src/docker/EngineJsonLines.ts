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
