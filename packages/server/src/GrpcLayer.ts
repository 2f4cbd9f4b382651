import type { GatehouseConfig } from "@gatehouse-edge/core"
import { GrpcServer, GrpcServerAddress } from "@gatehouse-edge/transport-grpc"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { listenerConnections, openFilesLimit } from "./ConnectionBudget.js"

/**
 * The gRPC transport (AuthService, health checking, reflection) over the core layer's services, on the configured
 * address and optional unix socket. The bound address stays in the output for tests and embedding.
 */
export const layerGrpc = (config: GatehouseConfig) => {
  const announce = Layer.effectDiscard(
    Effect.gen(function* () {
      const address = yield* GrpcServerAddress
      const host = address.host.includes(":") ? `[${address.host}]` : address.host
      yield* Effect.logInfo(`gRPC listening on ${host}:${address.port}`).pipe(
        Effect.annotateLogs(address.unixSocket === undefined ? {} : { unix_socket: address.unixSocket })
      )
    })
  )
  const limits = config.grpc.limits
  const server = Layer.unwrap(
    Effect.map(
      limits.connections === undefined
        ? Effect.map(openFilesLimit, listenerConnections)
        : Effect.succeed(limits.connections),
      (total) =>
        GrpcServer.layer({
          host: config.grpc.host,
          port: config.grpc.port,
          tls: config.grpc.tls,
          insecure: config.grpc.insecure,
          unixSocket: config.grpc.unixSocket,
          limits,
          connections: { perClient: limits.connectionsPerClient, total }
        })
    )
  )
  return announce.pipe(Layer.provideMerge(server))
}
