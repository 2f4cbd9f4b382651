/**
 * @gatehouse-edge/server — the bundled Gatehouse server and the `gatehouse` CLI. The composition root is exported
 * for embedding the whole server in another process.
 */
export { gatehouseCli } from "./Cli.js"
export { databasePath, layerGatehouseServer, type ServerOptions } from "./GatehouseServer.js"
export { layerLogging } from "./Logging.js"
export { renderOpenApi } from "./OpenApiDocuments.js"
export { versionInfo } from "./Version.js"
