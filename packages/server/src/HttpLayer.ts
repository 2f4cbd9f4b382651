import { type GatehouseConfig, parsePrefix, prefixContains } from "@gatehouse-edge/core"
import type { VersionInfo } from "@gatehouse-edge/core/domain"
import { layerHttpApp, layerNodeHttpServer, ServerDescription, WebSocketPolicy } from "@gatehouse-edge/transport-http"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import { allowedHosts } from "./AllowedHosts.js"
import { listenerConnections, openFilesLimit } from "./ConnectionBudget.js"
import { renderOpenApi } from "./OpenApiDocuments.js"

/**
 * The HTTP + WebSocket transport on a Node server, over the core layer's services. The HttpServer stays in the
 * output so an embedding process (or a test) can read the bound address.
 */
export const layerHttp = (config: GatehouseConfig, version: VersionInfo) => {
  const description = Layer.effect(ServerDescription)(
    Effect.map(Effect.cached(Effect.sync(renderOpenApi)), (openApi) => ServerDescription.of({ version, openApi }))
  )
  const announce = Layer.effectDiscard(
    HttpServer.addressFormattedWith((address) =>
      Effect.logInfo(`Gatehouse ${version.version} listening on ${address}/api/v1`).pipe(
        Effect.annotateLogs({ config: config.configFile ?? "(embedded defaults)", data_dir: config.dataDir })
      )
    )
  )
  const policy = Layer.succeed(WebSocketPolicy)({
    ...WebSocketPolicy.defaultValue(),
    allowedHosts: allowedHosts(config.http.host, config.http.allowedHosts),
    maxConnectionsPerClient: config.http.maxStreamsPerClient,
    maxConnections: config.http.maxStreams,
    maxBufferedBytesPerClient: config.http.maxQueuedBytesPerClient,
    maxBufferedBytesPerServer: config.http.maxQueuedBytes,
    publicOrigin: config.http.publicUrl,
    secureCookies: config.http.secureCookies
  })
  const proxies = config.http.trustedProxies.flatMap((text) => {
    const prefix = parsePrefix(text)
    return prefix === undefined ? [] : [prefix]
  })
  const trustedProxy =
    proxies.length === 0 ? undefined : (address: string) => proxies.some((prefix) => prefixContains(prefix, address))
  const limits = {
    maxBodyBytes: config.http.maxBodyBytes,
    maxConcurrentRequestsPerClient: config.http.maxRequestsPerClient,
    trustedProxy,
    bodiesInFlight: config.http.bodiesInFlight
  }
  const server = Layer.unwrap(
    Effect.map(
      config.http.maxConnections === undefined
        ? Effect.map(openFilesLimit, listenerConnections)
        : Effect.succeed(config.http.maxConnections),
      (total) =>
        layerNodeHttpServer(
          { host: config.http.host, port: config.http.port },
          // A trusted proxy carries every client's connections: only the total applies to it.
          { connections: { perClient: config.http.maxConnectionsPerClient, total, exempt: trustedProxy } }
        )
    )
  )
  return Layer.mergeAll(layerHttpApp(limits), announce).pipe(
    Layer.provideMerge(server),
    Layer.provide([description, policy])
  )
}
