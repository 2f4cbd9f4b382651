import * as net from "node:net"
import * as Effect from "effect/Effect"
import { DnsProviderFailed } from "./DnsProvider.js"

/**
 * Sends one DNS message over TCP (RFC 1035 §4.2.2: each message prefixed with its 2-byte length) and reads one
 * answer. TCP rather than UDP: an update with its signature, or a TXT answer, never gets truncated.
 */
export const exchangeTcp = (
  server: { readonly host: string; readonly port: number },
  message: Buffer,
  timeoutMs = 10_000
): Effect.Effect<Buffer, DnsProviderFailed> =>
  Effect.callback<Buffer, DnsProviderFailed>((resume) => {
    const label = `${server.host}:${server.port}`
    const socket = net.connect({ host: server.host, port: server.port })
    let received = Buffer.alloc(0)
    let done = false
    const finish = (effect: Effect.Effect<Buffer, DnsProviderFailed>) => {
      if (done) return
      done = true
      socket.destroy()
      resume(effect)
    }
    socket.setTimeout(timeoutMs, () =>
      finish(
        Effect.fail(new DnsProviderFailed({ detail: `DNS server ${label} did not answer within ${timeoutMs} ms` }))
      )
    )
    socket.on("connect", () => {
      const length = Buffer.alloc(2)
      length.writeUInt16BE(message.length)
      socket.write(Buffer.concat([length, message]))
    })
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        finish(Effect.succeed(received.subarray(2, 2 + received.readUInt16BE(0))))
      }
    })
    socket.on("error", (error: NodeJS.ErrnoException) =>
      finish(Effect.fail(new DnsProviderFailed({ detail: `DNS server ${label}: ${error.code ?? error.message}` })))
    )
    socket.on("close", () =>
      finish(Effect.fail(new DnsProviderFailed({ detail: `DNS server ${label} closed the connection` })))
    )
    return Effect.sync(() => {
      done = true
      socket.destroy()
    })
  })
