import * as dns from "node:dns/promises"
import * as net from "node:net"
import { makeConnectionCaps } from "@gatehouse-edge/core/domain"
import type * as grpc from "@grpc/grpc-js"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** How many TCP connections the gRPC listener holds at once (`grpc.limits.connections_per_client`, `.connections`). */
export interface GrpcConnectionLimits {
  /** Per client (an IPv4 address, an IPv6 /64 of the socket's peer). */
  readonly perClient: number
  readonly total: number
}

/**
 * Without configured limits: a client's calls and streams at once (256 + 1,000: an SSH gate per login attempt
 * may hold a connection of its own), and a total a default open-file limit leaves room for.
 */
export const defaultGrpcConnectionLimits: GrpcConnectionLimits = { perClient: 1256, total: 8192 }

/** The TCP listener could not be opened (`message` says where and why). */
export interface ListenFailure {
  readonly message: string
}

const listenOn = (listener: net.Server, host: string, port: number) =>
  new Promise<number>((resolve, reject) => {
    listener.once("error", reject)
    listener.listen({ host, port }, () => {
      listener.removeListener("error", reject)
      resolve((listener.address() as net.AddressInfo).port)
    })
  })

// A name (`localhost`) is listened on at each of its addresses, as grpc-js's own bind does, on one port.
const addressesOf = async (host: string) =>
  net.isIP(host) !== 0 ? [host] : (await dns.lookup(host, { all: true })).map((found) => found.address)

/**
 * Listens on `host:port` for the gRPC server and counts each connection before grpc-js sees it: grpc-js has no
 * hook between accept and its HTTP/2 session (its own listeners are private), so the server gets connections only
 * through its public connection injector (`Server.createConnectionInjector`, grpc-js ≥ 1.10), which runs them
 * exactly like bound ones (TLS, keepalive, idle timeout, shutdown draining). A connection past a cap is destroyed
 * before anything of it is read, refusals logged as warnings (at most one a minute). Closing the scope stops
 * accepting; the server's own shutdown then drains the connections it holds.
 */
export const listenCapped = (options: {
  readonly server: grpc.Server
  readonly credentials: grpc.ServerCredentials
  readonly host: string
  readonly port: number
  readonly limits: GrpcConnectionLimits
  readonly onRefused: (notice: string) => void
  /** A listener failed after it started (an `accept` that ran out of descriptors): it keeps listening. */
  readonly onError: (error: Error) => void
}): Effect.Effect<number, ListenFailure, Scope.Scope> =>
  Effect.gen(function* () {
    const host = options.host.replace(/^\[(.*)\]$/, "$1")
    const injector = options.server.createConnectionInjector(options.credentials)
    const caps = makeConnectionCaps({ ...options.limits, configKey: "grpc.limits", onRefused: options.onRefused })
    const accept = (socket: net.Socket) => {
      if (caps.admit(socket)) injector.injectConnection(socket)
    }
    const listeners: Array<net.Server> = []
    // Stops accepting first (this finalizer runs before the server's shutdown, added earlier).
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const listener of listeners) listener.close()
      })
    )
    return yield* Effect.tryPromise({
      try: async () => {
        let port = options.port
        for (const address of await addressesOf(host)) {
          const listener = net.createServer(accept)
          listeners.push(listener)
          port = await listenOn(listener, address, port)
          listener.on("error", options.onError)
        }
        return port
      },
      catch: (error): ListenFailure => ({ message: error instanceof Error ? error.message : String(error) })
    })
  })
