import { invalidUtf8Offset } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import type { CliExit } from "../CliExit.js"
import { failWith } from "./ServerConfig.js"

/**
 * `bytes` as text, or the command fails (exit 1) naming the first byte that is not UTF-8: decoding would replace it
 * with U+FFFD, and the file written from that text would silently differ from the one given (the server refuses
 * such a body for the same reason, but a decoded one looks valid to it).
 */
export const utf8Text = (bytes: Uint8Array, what: string): Effect.Effect<string, CliExit> => {
  const offset = invalidUtf8Offset(bytes)
  if (offset === undefined) return Effect.succeed(Buffer.from(bytes).toString("utf8"))
  const byte = bytes[offset]!.toString(16).padStart(2, "0")
  return failWith([
    `gatehouse: ${what} is not valid UTF-8: invalid byte 0x${byte} at offset ${offset}; nothing was sent`
  ])
}
