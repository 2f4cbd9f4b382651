import { formatListenAddress, type GatehouseConfig, makeServingSignal, Serving } from "@gatehouse-edge/core"
import type { VersionInfo } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type CoreOptions, layerCore } from "./CoreLayer.js"
import { layerGrpc } from "./GrpcLayer.js"
import { layerHttp } from "./HttpLayer.js"

/** Everything the composition root needs. */
export interface ServerOptions extends CoreOptions {
  readonly version: VersionInfo
}

/**
 * The whole server: the core layer and, on top of it, each transport (HTTP + WebSocket, gRPC); the core services stay in the output for an
 * embedding process (and tests). Closing it shuts down in reverse order: the
 * HTTP server stops accepting and lets in-flight requests finish (streams close with 1001 first), then monitors
 * and the watcher stop, and the store is closed cleanly.
 * Health checks start once both listeners are bound: the core is built first, and a route may check this very server.
 */
export const layerGatehouseServer = (options: ServerOptions) =>
  Layer.unwrap(
    Effect.map(makeServingSignal, ({ serving, listening }) =>
      Layer.merge(layerHttp(options.config, options.version), layerGrpc(options.config)).pipe(
        Layer.tap(() => listening),
        Layer.provideMerge(layerCore(options).pipe(Layer.provide(Layer.succeed(Serving)(serving))))
      )
    )
  )

/** `host:port` of the HTTP API, for messages. */
export const httpAddress = (config: GatehouseConfig) => formatListenAddress(config.http)

export { databasePath } from "./CoreLayer.js"
