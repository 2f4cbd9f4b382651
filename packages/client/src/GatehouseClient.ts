import { Authorization, CsrfHeaderName, GatehouseApi } from "@gatehouse-edge/contract/api"
import type { AuthRequest, AuthRequestFilter } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpApiClient from "effect/http-api/HttpApiClient"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Stream from "effect/Stream"
import { apiCalls, type EndpointError, type EndpointOf, type GroupCalls } from "./ApiCalls.js"
import { followAuthRequestPages } from "./AuthRequestPages.js"
import { csrfTokenFromDocument } from "./CsrfToken.js"
import { type FileCalls, fileCalls, withWriteConditions } from "./FileVersions.js"
import { type GatehouseStreams, makeStreams } from "./GatehouseStreams.js"

/**
 * Where the server is and how to authenticate: an API key (scripts, servers, the CLI), or — in a browser page of
 * the server — no key at all: the session cookie of the signed-in user goes with every request, and the CSRF token
 * (the `gatehouse_csrf` cookie) is sent as `X-CSRF-Token` on every unsafe request.
 */
export interface GatehouseClientOptions {
  /**
   * The server's address, e.g. `http://127.0.0.1:8888` (with any path it is mounted under). The API prefix the
   * server prints (`.../api/v1`) may be included; it is not doubled. In a browser page of the server: `location.origin`.
   */
  readonly baseUrl: string | URL
  /** An API key (`gh_<prefix>_<secret>`), sent as `Authorization: Bearer <key>`. Leave it out in a browser. */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
  /**
   * Whether `fetch` sends cookies (`RequestInit.credentials`). Default: `"include"` without an API key (a signed-in
   * browser), `"same-origin"` with one.
   */
  readonly credentials?: "include" | "same-origin" | "omit" | undefined
  /**
   * How long a stream's WebSocket upgrade may wait for the server's answer before the stream fails with a
   * `TransportError` (default 30 s; not in a browser, whose WebSocket has its own). Plain calls go through `fetch`,
   * which gives up on a connection after 10 s and on an answer after 300 s (Node's defaults). `Infinity`: no limit.
   */
  readonly handshakeTimeout?: Duration.Input | undefined
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
  /** The editable files; `readWithEtag`, `writeWithEtag` and `If-Match` keep editors from overwriting each other. */
  readonly files: FileCalls
  readonly authRequests: GroupCalls<"authRequests"> & {
    /** The request's current state, then each change; ends after a final state (WebSocket). */
    readonly watch: GatehouseStreams["watchAuthRequest"]
    /**
     * Every request matching the filter, newest first, fetched a page (`limit`, default 1000) at a time as the
     * stream is read (`list` with `before` = the last `auth_id` received).
     */
    readonly listAll: (
      filter?: AuthRequestFilter
    ) => Stream.Stream<AuthRequest, EndpointError<EndpointOf<"authRequests", "list">>>
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
  /** Signing in and out (`login.login({ payload: { username, password } })` in a browser sets the cookies). */
  readonly login: GroupCalls<"login">
  /** The caller (`whoami`), API keys and sessions (admins). */
  readonly access: GroupCalls<"access">
  /** Certificates from files and ACME: `info()`, `renew({query: {name}})`, and the renewal with its progress. */
  readonly certs: GroupCalls<"certs"> & {
    /** Renews and streams progress frames, then the result frame (WebSocket). */
    readonly renewWithProgress: GatehouseStreams["renewCertificates"]
  }
  /** Metrics of the routes: `metrics.uptime({ query: { period, limit, offset, keyword } })`. */
  readonly metrics: GroupCalls<"metrics"> & {
    /** The uptime page of the query, then the page again after every sample (WebSocket). */
    readonly watchUptime: GatehouseStreams["watchUptime"]
  }
  /** The client derived from the contract, as is: for per-call options such as `responseMode`. */
  readonly api: HttpApiClient.ForApi<typeof GatehouseApi>
}

// The filter as the list's query: an absent field is left out, not sent empty.
const definedQuery = (filter: AuthRequestFilter) =>
  Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)) as {
    readonly [K in keyof AuthRequestFilter]?: Exclude<AuthRequestFilter[K], undefined>
  }

/** Strips trailing slashes and the `/api/v1` prefix the endpoints already carry. */
export const normalizeBaseUrl = (baseUrl: string | URL): string =>
  String(baseUrl)
    .replace(/\/+$/, "")
    .replace(/\/api\/v1$/, "")

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

// An API key goes in `Authorization`; without one the browser's cookie authenticates (see withCsrfToken).
const authorizationClient = (apiKey: Redacted.Redacted<string> | undefined) =>
  HttpApiMiddleware.layerClient(Authorization, ({ next, request }) =>
    next(apiKey === undefined ? request : HttpClientRequest.bearerToken(request, Redacted.value(apiKey)))
  )

// Without a key, every unsafe request carries the CSRF header: those behind authorization, and the public ones
// that still act on the browser's session (signing out).
const withCsrfToken = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.mapRequest(client, (request) => {
    const csrf = SAFE_METHODS.has(request.method) ? undefined : csrfTokenFromDocument()
    return csrf === undefined ? request : HttpClientRequest.setHeader(request, CsrfHeaderName, csrf)
  })

// `ws` takes 0 as "no timeout"; Node's timers would fire an infinite one at once.
const handshakeTimeoutMs = (timeout: Duration.Input | undefined) => {
  if (timeout === undefined) return undefined
  const ms = Duration.toMillis(timeout)
  return Number.isFinite(ms) ? Math.max(1, ms) : 0
}

/** Builds the client on the given `HttpClient` (see {@link GatehouseClient.layer} for the fetch-based default). */
export const makeGatehouseClient = Effect.fn("GatehouseClient.make")(function* (options: GatehouseClientOptions) {
  const baseUrl = normalizeBaseUrl(options.baseUrl)
  const apiKey = typeof options.apiKey === "string" ? Redacted.make(options.apiKey) : options.apiKey
  const api = yield* HttpApiClient.make(GatehouseApi, {
    baseUrl,
    transformClient: (client) => withWriteConditions(apiKey === undefined ? withCsrfToken(client) : client)
  }).pipe(Effect.provide(authorizationClient(apiKey)))
  const calls = apiCalls(api)
  const streams = makeStreams({
    baseUrl,
    authorization: apiKey === undefined ? undefined : `Bearer ${Redacted.value(apiKey)}`,
    handshakeTimeoutMs: handshakeTimeoutMs(options.handshakeTimeout),
    newestEventId: Effect.map(calls.events.list({ query: { limit: 1 } }), (events) => events.at(-1)?.id)
  })
  return GatehouseClient.of({
    system: calls.system,
    routes: { ...calls.routes, watch: streams.watchRoutes, validateStream: streams.validateStream },
    health: { ...calls.health, watch: streams.watchHealth },
    events: { ...calls.events, watch: streams.watchEvents },
    files: fileCalls(api, calls.files),
    authRequests: {
      ...calls.authRequests,
      watch: streams.watchAuthRequest,
      listAll: followAuthRequestPages((filter) => calls.authRequests.list({ query: definedQuery(filter) }))
    },
    hypervisor: {
      clusters: calls.hypervisor.clusters,
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
    login: calls.login,
    access: calls.access,
    docker: {
      ...calls.docker,
      watchContainers: streams.watchContainers,
      watchStats: streams.watchContainerStats,
      followLogs: streams.followContainerLogs
    },
    certs: { ...calls.certs, renewWithProgress: streams.renewCertificates },
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

  /** The client over the platform's `fetch` (with cookies as `options.credentials` says). */
  static readonly layer = (options: GatehouseClientOptions): Layer.Layer<GatehouseClient> =>
    GatehouseClient.layerWithoutHttpClient(options).pipe(
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(
        Layer.succeed(FetchHttpClient.RequestInit)({
          credentials: options.credentials ?? (options.apiKey === undefined ? "include" : "same-origin")
        })
      )
    )
}
