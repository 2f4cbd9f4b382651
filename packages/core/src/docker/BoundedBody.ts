import type { Readable } from "node:stream"
import { DockerHostUnreachable } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * The whole of an engine response's body (a non-follow read, which the engine ends), or `None` once it passes
 * `maxBytes`: the read stops there (the connection is closed) and what it held is let go, so a caller holds at most
 * `maxBytes` of it whatever the engine sends.
 */
export const readBoundedBody = (host: string, maxBytes: number) => (body: Readable) =>
  Effect.callback<Option.Option<Buffer>, DockerHostUnreachable>((resume) => {
    let chunks: Array<Buffer> = []
    let size = 0
    let settled = false
    const settle = (result: Effect.Effect<Option.Option<Buffer>, DockerHostUnreachable>) => {
      if (settled) return
      settled = true
      resume(result)
    }
    body.on("data", (chunk: Buffer) => {
      if (settled) return
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      chunks = []
      body.destroy()
      settle(Effect.succeedNone)
    })
    body.once("end", () => settle(Effect.succeed(Option.some(Buffer.concat(chunks)))))
    // The socket's own words (an address, a path) are for the log; the caller hears what happened.
    body.once("error", (error) => {
      const broken = new DockerHostUnreachable({ host, detail: "the response broke off" })
      settle(Effect.andThen(Effect.logWarning(`${broken.message} (${error.message})`), Effect.fail(broken)))
    })
    body.resume()
    return Effect.sync(() => body.destroy())
  })
