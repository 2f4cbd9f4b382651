import * as path from "node:path"
import {
  ApiKeys,
  ConfigSource,
  type ConfigSources,
  EventBus,
  Files,
  formatListenAddress,
  type GatehouseConfig,
  Health,
  layerConfigWatcher,
  Routes,
  SqliteStore
} from "@gatehouse-edge/core"
import type { VersionInfo } from "@gatehouse-edge/core/domain"
import { layerHttpApp, layerNodeHttpServer, ServerDescription } from "@gatehouse-edge/transport-http"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { ensureAdminKey } from "./AdminKey.js"
import { renderOpenApi } from "./OpenApiDocuments.js"

/** Everything the composition root needs besides the validated configuration. */
export interface ServerOptions {
  readonly config: GatehouseConfig
  /** The environment, flags and working directory the config was loaded with (for validating edits). */
  readonly sources: Omit<ConfigSources, "file">
  readonly version: VersionInfo
}

/** The SQLite file of the embedded store. */
export const databasePath = (config: GatehouseConfig) => path.join(config.dataDir, "gatehouse.db")

/**
 * The composition root: the only place that knows every part. Store → events → routes → health, files and the
 * config watcher, then the HTTP API on a Node server. Closing the layer shuts down in reverse order: the HTTP
 * server stops accepting and lets in-flight requests finish, streams close with 1001, monitors and the watcher
 * stop, and the store is closed cleanly.
 */
export const layerGatehouseServer = (options: ServerOptions) => {
  const { config } = options
  const store = SqliteStore.layer({ filename: databasePath(config) })
  const events = EventBus.layer({ historyCap: config.events.history }).pipe(Layer.provide(store))
  const routes = Routes.layer({ routesDir: config.routesDir })
  const configSource = ConfigSource.layer(config, options.sources)
  const core = Layer.mergeAll(
    Health.layer,
    Files.layer({ configFile: config.configFile, routesDir: config.routesDir }),
    layerConfigWatcher({ configFile: config.configFile, routesDir: config.routesDir })
  ).pipe(Layer.provideMerge(Layer.merge(routes, configSource)), Layer.provideMerge(events))

  const apiKeys = Layer.unwrap(Effect.map(ensureAdminKey(config.dataDir), (admin) => ApiKeys.layer([admin])))
  const openApi = renderOpenApi()
  const description = Layer.succeed(ServerDescription)(
    ServerDescription.of({ version: options.version, openApiJson: openApi.json, openApiYaml: openApi.yamlText })
  )

  const announce = Layer.effectDiscard(
    HttpServer.addressFormattedWith((address) =>
      Effect.logInfo(`Gatehouse ${options.version.version} listening on ${address}/api/v1`).pipe(
        Effect.annotateLogs({ config: config.configFile ?? "(embedded defaults)", data_dir: config.dataDir })
      )
    )
  )

  // The HttpServer stays in the output so an embedding process (or a test) can read the bound address.
  return Layer.mergeAll(layerHttpApp({ maxBodyBytes: config.http.maxBodyBytes }), announce).pipe(
    Layer.provideMerge(layerNodeHttpServer({ host: config.http.host, port: config.http.port })),
    Layer.provide(Layer.mergeAll(core, apiKeys, description))
  )
}

/** `host:port` of the HTTP API, for messages. */
export const httpAddress = (config: GatehouseConfig) => formatListenAddress(config.http)
