import type * as grpc from "@grpc/grpc-js"
import * as Effect from "effect/Effect"
import type { HeldConnections } from "./HeldConnections.js"

/**
 * Stops a grpc-js server: new calls are refused (GOAWAY) and those in flight finish; past `graceMs` the rest are
 * cancelled and their connections destroyed. grpc-js's own forced shutdown is not enough to end the wait: it
 * destroys each session, but Node still ends the connection gracefully and waits for the peer to close its side,
 * which a frozen or unreachable peer never does.
 */
export const shutdownGracefully = (server: grpc.Server, connections: HeldConnections, graceMs: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => {
      server.forceShutdown()
      connections.destroyAll()
    }, graceMs)
    server.tryShutdown(() => {
      clearTimeout(timer)
      // What grpc-js never waited for: a connection that never became a session (a TLS handshake left unfinished).
      connections.destroyAll()
      resume(Effect.void)
    })
  })
