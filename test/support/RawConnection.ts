import * as net from "node:net"
import { assert } from "@effect/vitest"
import { Effect } from "effect"

/** A raw TCP connection to a loopback port: its socket, and what the server has sent on it (bytes, as text). */
export interface RawConnection {
  readonly socket: net.Socket
  readonly received: () => number
  readonly text: () => string
}

/** Connects to `127.0.0.1:port` and sends `sent` (a partial request, an HTTP/2 preface); destroyed with the scope. */
export const rawConnection = (port: number, sent: string) =>
  Effect.acquireRelease(
    Effect.callback<RawConnection>((resume) => {
      const chunks: Array<Buffer> = []
      const received = () => chunks.reduce((total, chunk) => total + chunk.length, 0)
      const text = () => Buffer.concat(chunks).toString("latin1")
      const socket = net.connect(port, "127.0.0.1", () => resume(Effect.succeed({ socket, received, text })))
      socket.on("data", (chunk: Buffer) => chunks.push(chunk))
      socket.on("error", () => {})
      socket.write(sent)
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

/** Succeeds once the server has closed the connection. */
export const closed = (connection: RawConnection) =>
  Effect.callback<void>((resume) => {
    if (connection.socket.destroyed) return resume(Effect.void)
    connection.socket.once("close", () => resume(Effect.void))
  })

/** Succeeds once the server has closed the connection (within 2 s), having sent nothing on it: refused unread. */
export const closedUnanswered = (connection: RawConnection) =>
  Effect.gen(function* () {
    yield* closed(connection).pipe(Effect.timeout("2 seconds"))
    assert.strictEqual(connection.received(), 0)
  })
