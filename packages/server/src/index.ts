/**
 * @gatehouse-edge/server — the bundled Gatehouse server and the `gatehouse` CLI. The composition root is exported
 * for embedding: the core layer, each transport's layer, and the whole server.
 */
export { gatehouseCli } from "./Cli.js"
export { type CoreOptions, databasePath, layerCore } from "./CoreLayer.js"
export { layerGatehouseServer, type ServerOptions } from "./GatehouseServer.js"
export { layerHttp } from "./HttpLayer.js"
export { layerLogging } from "./Logging.js"
/** What `gatehouse serve` adds on Node 24 and later so V8 gives memory back; an embedding process may add it too. */
export * as MemoryReducerNudge from "./MemoryReducerNudge.js"
export { renderOpenApi } from "./OpenApiDocuments.js"
export { versionInfo } from "./Version.js"
