import * as net from "node:net"
import { Effect } from "effect"

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picked it; the listener is closed again). */
export const freePort = Effect.callback<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as net.AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})
