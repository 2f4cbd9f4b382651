import { Authorization, GatehouseApi } from "@gatehouse-edge/transport-http/api"
import { Context, Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, type HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { apiCalls, type GroupCalls } from "./ApiCalls.js"
import { type GatehouseStreams, makeStreams } from "./GatehouseStreams.js"

/** Where the server is and the API key to use. */
export interface GatehouseClientOptions {
  /**
   * The server's address, e.g. `http://127.0.0.1:8888` (with any path it is mounted under). The API prefix the
   * server prints (`.../api/v1`) may be included; it is not doubled.
   */
  readonly baseUrl: string | URL
  /** An API key (`gh_<prefix>_<secret>`), sent as `Authorization: Bearer <key>`. */
  readonly apiKey: string | Redacted.Redacted<string>
}

/**
 * The Gatehouse API: every endpoint of the contract as `client.<group>.<endpoint>(request?)` with the derived
 * client's request shape (`{ params, query, payload }`), plus the WebSocket streams next to the snapshot they
 * extend: `health.watch()`, `events.watch(query?)`, `routes.watch()`, `routes.validateStream(documents)` and
 * `authRequests.watch(authId)`, `metrics.watchUptime(query?)`, and the hypervisor's stats, journal and tail streams.
 */
export interface GatehouseClientShape {
  readonly system: GroupCalls<"system">
  readonly routes: Omit<GroupCalls<"routes">, "validateStream"> & {
    /** The route list, then the whole list again on every change (WebSocket). */
    readonly watch: GatehouseStreams["watchRoutes"]
    /** Streams YAML documents to the validator and emits one frame per route, then `done` per document (WebSocket). */
    readonly validateStream: GatehouseStreams["validateStream"]
  }
  readonly health: GroupCalls<"health"> & {
    /** The health map, then again at most once per second when a status changes (WebSocket). */
    readonly watch: GatehouseStreams["watchHealth"]
  }
  readonly events: GroupCalls<"events"> & {
    /** The matching history, newest last, then live events (WebSocket). */
    readonly watch: GatehouseStreams["watchEvents"]
  }
  readonly files: GroupCalls<"files">
  readonly authRequests: GroupCalls<"authRequests"> & {
    /** The request's current state, then each change; ends after a final state (WebSocket). */
    readonly watch: GatehouseStreams["watchAuthRequest"]
  }
  /** Proxmox VE nodes and LXC containers; journal and tail exist only as streams. */
  readonly hypervisor: Omit<
    GroupCalls<"hypervisor">,
    "journal" | "nodeJournal" | "guestJournal" | "unitJournal" | "tail"
  > & {
    /** The node's stats every second (WebSocket). */
    readonly watchNodeStats: GatehouseStreams["watchNodeStats"]
    /** The guest's stats line every second (WebSocket). */
    readonly watchGuestStats: GatehouseStreams["watchGuestStats"]
    /** Follows a journal over SSH (WebSocket). */
    readonly journal: GatehouseStreams["journal"]
    /** Follows files over SSH (WebSocket). */
    readonly tail: GatehouseStreams["tail"]
  }
  /** Docker and Podman engines. */
  readonly docker: GroupCalls<"docker"> & {
    /** The container list, then again whenever it changed (WebSocket). */
    readonly watchContainers: GatehouseStreams["watchContainers"]
    /** A container's stats at the engine's cadence (WebSocket). */
    readonly watchStats: GatehouseStreams["watchContainerStats"]
    /** A container's last lines, then each new one (WebSocket). */
    readonly followLogs: GatehouseStreams["followContainerLogs"]
  }
  /** Metrics of the routes: `metrics.uptime({ query: { period, limit, offset, keyword } })`. */
  readonly metrics: GroupCalls<"metrics"> & {
    /** The uptime page of the query, then the page again after every sample (WebSocket). */
    readonly watchUptime: GatehouseStreams["watchUptime"]
  }
  /** The client derived from the contract, as is: for per-call options such as `responseMode`. */
  readonly api: HttpApiClient.ForApi<typeof GatehouseApi>
}

/** Strips trailing slashes and the `/api/v1` prefix the endpoints already carry. */
export const normalizeBaseUrl = (baseUrl: string | URL): string =>
  String(baseUrl)
    .replace(/\/+$/, "")
    .replace(/\/api\/v1$/, "")

const authorizationClient = (apiKey: Redacted.Redacted<string>) =>
  HttpApiMiddleware.layerClient(Authorization, ({ next, request }) =>
    next(HttpClientRequest.bearerToken(request, Redacted.value(apiKey)))
  )

/** Builds the client on the given `HttpClient` (see {@link GatehouseClient.layer} for the fetch-based default). */
export const makeGatehouseClient = Effect.fn("GatehouseClient.make")(function* (options: GatehouseClientOptions) {
  const baseUrl = normalizeBaseUrl(options.baseUrl)
  const apiKey = typeof options.apiKey === "string" ? Redacted.make(options.apiKey) : options.apiKey
  const api = yield* HttpApiClient.make(GatehouseApi, { baseUrl }).pipe(Effect.provide(authorizationClient(apiKey)))
  const calls = apiCalls(api)
  const streams = makeStreams({ baseUrl, authorization: `Bearer ${Redacted.value(apiKey)}` })
  return GatehouseClient.of({
    system: calls.system,
    routes: { ...calls.routes, watch: streams.watchRoutes, validateStream: streams.validateStream },
    health: { ...calls.health, watch: streams.watchHealth },
    events: { ...calls.events, watch: streams.watchEvents },
    files: calls.files,
    authRequests: { ...calls.authRequests, watch: streams.watchAuthRequest },
    hypervisor: {
      nodes: calls.hypervisor.nodes,
      guests: calls.hypervisor.guests,
      nodeStats: calls.hypervisor.nodeStats,
      guestStats: calls.hypervisor.guestStats,
      lxc: calls.hypervisor.lxc,
      watchNodeStats: streams.watchNodeStats,
      watchGuestStats: streams.watchGuestStats,
      journal: streams.journal,
      tail: streams.tail
    },
    docker: {
      ...calls.docker,
      watchContainers: streams.watchContainers,
      watchStats: streams.watchContainerStats,
      followLogs: streams.followContainerLogs
    },
    metrics: { ...calls.metrics, watchUptime: streams.watchUptime },
    api
  })
})

/** The typed Gatehouse client service. */
export class GatehouseClient extends Context.Service<GatehouseClient, GatehouseClientShape>()(
  "@gatehouse-edge/client/GatehouseClient"
) {
  /** The client on an `HttpClient` provided by the caller (retries, proxies, tracing, a custom fetch...). */
  static readonly layerWithoutHttpClient = (
    options: GatehouseClientOptions
  ): Layer.Layer<GatehouseClient, never, HttpClient.HttpClient> =>
    Layer.effect(GatehouseClient, makeGatehouseClient(options))

  /** The client over the platform's `fetch`. */
  static readonly layer = (options: GatehouseClientOptions): Layer.Layer<GatehouseClient> =>
    GatehouseClient.layerWithoutHttpClient(options).pipe(Layer.provide(FetchHttpClient.layer))
}
