import { GatehouseApi, type StreamEndpoint, StreamEndpoints } from "@gatehouse-edge/contract/api"
import type {
  AuthRequest,
  CertRenewFrame,
  ContainerLogLine,
  ContainerStats,
  ContainerSummary,
  Event,
  HealthMap,
  NodeStats,
  RouteEntry,
  RouteUptimePage,
  RouteValidationMessage
} from "@gatehouse-edge/contract/domain"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as HttpApiClient from "effect/http-api/HttpApiClient"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { EndpointError, EndpointOf, EndpointRequest } from "./ApiCalls.js"
import { WebSocketClosed } from "./WebSocketClosed.js"
import { openWebSocket } from "./WebSocketConnection.js"

/** The query of `events.watch`: `since` (an event id), `limit` (1–1000, default 100), `category`. */
export type EventsQuery = NonNullable<EndpointRequest<EndpointOf<"events", "list">>["query"]>

/**
 * What a stream of an endpoint fails with: the same typed errors as the plain HTTP call of that endpoint when the
 * upgrade is refused (e.g. `Unauthenticated`), `WebSocketClosed` when the server closes with anything but 1000,
 * and `SchemaError` for a frame that does not decode.
 */
export type StreamError<E extends HttpApiEndpoint.ConstraintRequest> = EndpointError<E> | WebSocketClosed

/** The query of `hypervisor.journal`: `node`, `vmid` (0 or absent: the node), `service` (units), `limit` (1–1000). */
export type JournalQuery = EndpointRequest<EndpointOf<"hypervisor", "journal">>["query"]

/** The query of `hypervisor.tail`: `node`, `vmid` (0 or absent: the node), `file` (absolute paths), `limit`. */
export type TailQuery = EndpointRequest<EndpointOf<"hypervisor", "tail">>["query"]

/** The query of `docker.followLogs`: `limit` (1–1000), `stdout`, `stderr`, `since`, `until`, `timestamps`. */
export type LogsQuery = NonNullable<EndpointRequest<EndpointOf<"docker", "logs">>["query"]>

/** The query of `metrics.uptime` and `metrics.watchUptime`: `period`, `limit` (1–1000), `offset`, `keyword`. */
export type UptimeMetricsQuery = NonNullable<EndpointRequest<EndpointOf<"metrics", "uptime">>["query"]>

/** The WebSocket streams of the API. */
export interface GatehouseStreams {
  /** The health map, then a new map at most once per second when a status changes. Never ends by itself. */
  readonly watchHealth: () => Stream.Stream<HealthMap, StreamError<EndpointOf<"health", "get">>>
  /** The matching history (newest last), then live events. */
  readonly watchEvents: (query?: EventsQuery) => Stream.Stream<Event, StreamError<EndpointOf<"events", "list">>>
  /** The route list, then the whole list again on every change. */
  readonly watchRoutes: () => Stream.Stream<ReadonlyArray<RouteEntry>, StreamError<EndpointOf<"routes", "list">>>
  /** The auth request's current state, then each change; ends after a final state. */
  readonly watchAuthRequest: (
    authId: string
  ) => Stream.Stream<AuthRequest, StreamError<EndpointOf<"authRequests", "get">>>
  /** The Docker container list, then again whenever it changed. */
  readonly watchContainers: () => Stream.Stream<
    ReadonlyArray<ContainerSummary>,
    StreamError<EndpointOf<"docker", "containers">>
  >
  /** A container's stats at the engine's cadence. */
  readonly watchContainerStats: (
    id: string
  ) => Stream.Stream<ContainerStats, StreamError<EndpointOf<"docker", "stats">>>
  /** A container's last lines, then each new one until it stops. */
  readonly followContainerLogs: (
    id: string,
    query?: LogsQuery
  ) => Stream.Stream<ContainerLogLine, StreamError<EndpointOf<"docker", "logs">>>
  /** The uptime page of the query, then the page again after every sample (every second). Never ends by itself. */
  readonly watchUptime: (
    query?: UptimeMetricsQuery
  ) => Stream.Stream<RouteUptimePage, StreamError<EndpointOf<"metrics", "uptime">>>
  /** A Proxmox VE node's stats every second. */
  readonly watchNodeStats: (
    node: string
  ) => Stream.Stream<NodeStats, StreamError<EndpointOf<"hypervisor", "nodeStats">>>
  /** A guest's stats line every second. */
  readonly watchGuestStats: (
    node: string,
    vmid: number
  ) => Stream.Stream<string, StreamError<EndpointOf<"hypervisor", "guestStats">>>
  /** A journal's last `limit` lines, then each new line (over SSH on the node); ends when the command does. */
  readonly journal: (query: JournalQuery) => Stream.Stream<string, StreamError<EndpointOf<"hypervisor", "journal">>>
  /** Files' last `limit` lines, then each new line (`tail -F` on the node or in a container). */
  readonly tail: (query: TailQuery) => Stream.Stream<string, StreamError<EndpointOf<"hypervisor", "tail">>>
  /**
   * Starts renewing the ACME certificates (or the one named): progress frames, then one result frame
   * (`{ok, certs?, error?}`), after which the stream ends. A running renewal refuses it (`RenewalInProgress`).
   */
  readonly renewCertificates: (
    name?: string
  ) => Stream.Stream<CertRenewFrame, StreamError<EndpointOf<"certs", "renew">>>
  /**
   * Sends each YAML document and emits the server's answers: one frame per route, then a `done` frame per
   * document. Ends (closing the socket) once every document sent has its `done` frame and `documents` ended.
   */
  readonly validateStream: <E = never>(
    documents: Stream.Stream<string, E>
  ) => Stream.Stream<RouteValidationMessage, E | StreamError<EndpointOf<"routes", "validateStream">>>
}

/** Where the streams connect and with which key. */
export interface StreamOptions {
  /** The server's origin (with any mount path), e.g. `http://127.0.0.1:8888`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <key>` on the upgrade request; none in a browser (its cookie goes instead). */
  readonly authorization?: string | undefined
  /** How long an upgrade may wait for the server's answer before the stream fails (default 30 s). */
  readonly handshakeTimeoutMs?: number | undefined
}

/** Decodes the text frames of a declared stream endpoint with its frame schema. */
const decodeFrames =
  <S extends StreamEndpoint>(endpoint: S) =>
  <E>(frames: Stream.Stream<string, E>): Stream.Stream<S["frame"]["Type"], E | Schema.SchemaError> => {
    // A text stream's frame is the value itself (one line), not JSON.
    if (endpoint.encoding === "text") return frames as Stream.Stream<S["frame"]["Type"], E>
    const decode = Schema.decodeUnknownEffect(
      Schema.fromJsonString(endpoint.frame as Schema.Codec<S["frame"]["Type"], S["frame"]["Encoded"]>)
    )
    return Stream.mapEffect(frames, (frame) => decode(frame))
  }

/** Builds the URL the way the derived client does, so bad parameters fail with the same `SchemaError`. */
const buildUrl = (build: () => string): Effect.Effect<string, Schema.SchemaError> =>
  Effect.try({ try: build, catch: (error) => error }).pipe(
    Effect.catch((error) => (Schema.isSchemaError(error) ? Effect.fail(error) : Effect.die(error)))
  )

/** The WebSocket streams of the Gatehouse API, decoded with the domain schemas. */
export const makeStreams = (options: StreamOptions): GatehouseStreams => {
  const urls = HttpApiClient.urlBuilder(GatehouseApi, { baseUrl: options.baseUrl })
  const headers: Record<string, string> =
    options.authorization === undefined ? {} : { authorization: options.authorization }

  const connect = <E>(
    url: Effect.Effect<string, Schema.SchemaError>,
    refused: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, E>
  ) =>
    Effect.flatMap(url, (u) =>
      openWebSocket({ url: u, headers, refused, handshakeTimeoutMs: options.handshakeTimeoutMs })
    )

  // A declared stream's URL and refusal decoding come from the HttpApi endpoint it names, its frames' schema from
  // the declaration: nothing here is written per endpoint.
  const endpointOf = <S extends StreamEndpoint>(endpoint: S) => {
    const group = (urls as unknown as Record<string, Record<string, (request?: unknown) => string>>)[endpoint.group]
    const build = group![endpoint.endpoint]!
    const refused = HttpApiClient.decodeResponse(GatehouseApi, {
      group: endpoint.group,
      endpoint: endpoint.endpoint
    } as never) as (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, never>
    return { url: (request?: unknown) => buildUrl(() => build(request)), refused }
  }

  const subscribe = <S extends StreamEndpoint>(endpoint: S, request?: unknown) => {
    const { url, refused } = endpointOf(endpoint)
    return Stream.unwrap(Effect.map(connect(url(request), refused), (socket) => socket.frames)).pipe(
      decodeFrames(endpoint)
    )
  }

  const watchHealth = () => subscribe(StreamEndpoints.health)

  const watchEvents = (query: EventsQuery = {}) => subscribe(StreamEndpoints.events, { query })

  const watchRoutes = () => subscribe(StreamEndpoints.routes)

  const watchAuthRequest = (authId: string) => subscribe(StreamEndpoints.authRequest, { params: { auth_id: authId } })

  const validateStream = <E>(documents: Stream.Stream<string, E>) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const { url, refused } = endpointOf(StreamEndpoints.validate)
        const socket = yield* connect(url(), refused)
        const inputEnded = yield* Deferred.make<number>()
        let sent = 0
        // A failed send means the socket closed: the frames stream reports how, so the sender just stops.
        const sender = Stream.runForEach(documents, (document) =>
          Effect.map(socket.send(document), () => {
            sent++
          })
        ).pipe(
          Effect.andThen(Effect.suspend(() => Deferred.succeed(inputEnded, sent))),
          Effect.catchIf(
            (error): error is WebSocketClosed => error instanceof WebSocketClosed,
            () => Effect.never
          )
        )
        type Item =
          | { readonly _tag: "Frame"; readonly frame: RouteValidationMessage }
          | { readonly _tag: "InputEnded"; readonly sent: number }
        const answers = socket.frames.pipe(
          decodeFrames(StreamEndpoints.validate),
          Stream.map((frame): Item => ({ _tag: "Frame", frame }))
        )
        const ended = Stream.fromEffect(
          Effect.map(Deferred.await(inputEnded), (n): Item => ({ _tag: "InputEnded", sent: n }))
        )
        // Input end and answers go through one stream, so "every document answered" is decided in order.
        let answered = 0
        let total: number | undefined
        return Stream.merge(answers, Stream.merge(ended, Stream.fromEffectDrain(sender)), {
          haltStrategy: "left"
        }).pipe(
          Stream.takeUntil((item) => {
            if (item._tag === "InputEnded") total = item.sent
            else if ("done" in item.frame) answered++
            return total !== undefined && answered >= total
          }),
          Stream.filter((item): item is Extract<Item, { _tag: "Frame" }> => item._tag === "Frame"),
          Stream.map((item) => item.frame)
        )
      })
    )

  const watchUptime = (query: UptimeMetricsQuery = {}) => subscribe(StreamEndpoints.uptime, { query })
  const watchNodeStats = (node: string) => subscribe(StreamEndpoints.nodeStats, { params: { node } })
  const watchGuestStats = (node: string, vmid: number) =>
    subscribe(StreamEndpoints.guestStats, { params: { node, vmid } })
  const journal = (query: JournalQuery) => subscribe(StreamEndpoints.journal, { query })
  const tail = (query: TailQuery) => subscribe(StreamEndpoints.tail, { query })
  const watchContainers = () => subscribe(StreamEndpoints.dockerContainers)
  const watchContainerStats = (id: string) => subscribe(StreamEndpoints.dockerStats, { params: { id } })
  const followContainerLogs = (id: string, query: LogsQuery = {}) =>
    subscribe(StreamEndpoints.dockerLogs, { params: { id }, query })

  const renewCertificates = (name?: string) =>
    subscribe(StreamEndpoints.certRenew, { query: name === undefined ? {} : { name } })

  return {
    renewCertificates,
    watchHealth,
    watchEvents,
    watchRoutes,
    watchAuthRequest,
    validateStream,
    watchUptime,
    watchNodeStats,
    watchGuestStats,
    journal,
    tail,
    watchContainers,
    watchContainerStats,
    followContainerLogs
  } as GatehouseStreams
}
