import { formatListenAddress, type GatehouseConfig } from "@gatehouse-edge/core"
import type { VersionInfo } from "@gatehouse-edge/core/domain"
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
 */
export const layerGatehouseServer = (options: ServerOptions) =>
  Layer.merge(layerHttp(options.config, options.version), layerGrpc(options.config)).pipe(
    Layer.provideMerge(layerCore(options))
  )

/** `host:port` of the HTTP API, for messages. */
export const httpAddress = (config: GatehouseConfig) => formatListenAddress(config.http)

export { databasePath } from "./CoreLayer.js"
