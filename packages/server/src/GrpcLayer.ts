import type { GatehouseConfig } from "@gatehouse-edge/core"
import { GrpcServer, GrpcServerAddress } from "@gatehouse-edge/transport-grpc"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

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
  return announce.pipe(
    Layer.provideMerge(
      GrpcServer.layer({
        host: config.grpc.host,
        port: config.grpc.port,
        tls: config.grpc.tls,
        insecure: config.grpc.insecure,
        unixSocket: config.grpc.unixSocket,
        limits: config.grpc.limits
      })
    )
  )
}
