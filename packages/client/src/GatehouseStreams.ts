import { GatehouseApi, type StreamEndpoint, StreamEndpoints } from "@gatehouse-edge/contract/api"
import {
  type AuthRequest,
  type CertRenewFrame,
  type ContainerLogLine,
  type ContainerStats,
  type ContainerSummary,
  type Event,
  eventsResumeErrorOfClose,
  type HealthMap,
  type NodeStats,
  type RouteEntry,
  type RouteUptimePage,
  type RouteValidationMessage
} from "@gatehouse-edge/contract/domain"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as HttpApiClient from "effect/http-api/HttpApiClient"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { EndpointError, EndpointOf, EndpointRequest } from "./ApiCalls.js"
import { type Resumption, reconnectOptionsOf, type WatchOptions } from "./Reconnect.js"
import { reconnecting } from "./ReconnectingStream.js"
import { resumeBeforeAnyEvent } from "./ResumeBeforeAnyEvent.js"
import { isRetryable } from "./RetryableFailure.js"
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

/** The options of a stream of endpoint `E`: `{ reconnect }`, whose notices carry the stream's own errors. */
export type StreamCallOptions<E extends HttpApiEndpoint.ConstraintRequest> = WatchOptions<StreamError<E>>

/**
 * The WebSocket streams of the API. Every stream that follows something takes `{ reconnect }` last (see
 * `ReconnectOptions`): events resume exactly after the last one delivered, snapshots subscribe again, and log
 * tails (container logs, journal, tail) start again from their last `limit` lines, so lines may repeat or be missed
 * around the gap. A renewal and a validation are not reconnected: each acts once, on what was sent.
 */
export interface GatehouseStreams {
  /** The health map, then a new map at most once per second when a status changes. Never ends by itself. */
  readonly watchHealth: (
    options?: StreamCallOptions<EndpointOf<"health", "get">>
  ) => Stream.Stream<HealthMap, StreamError<EndpointOf<"health", "get">>>
  /**
   * The matching history (newest last), then live events; reconnected, it resumes after the last one delivered (before
   * the first: after the newest event when it started). A replay the history can no longer continue fails with
   * `EventsTrimmed` or `EventNotFound`, refused before the upgrade or closed during it.
   */
  readonly watchEvents: (
    query?: EventsQuery,
    options?: StreamCallOptions<EndpointOf<"events", "list">>
  ) => Stream.Stream<Event, StreamError<EndpointOf<"events", "list">>>
  /** The route list, then the whole list again on every change. */
  readonly watchRoutes: (
    options?: StreamCallOptions<EndpointOf<"routes", "list">>
  ) => Stream.Stream<ReadonlyArray<RouteEntry>, StreamError<EndpointOf<"routes", "list">>>
  /** The auth request's current state, then each change; ends after a final state. */
  readonly watchAuthRequest: (
    authId: string,
    options?: StreamCallOptions<EndpointOf<"authRequests", "get">>
  ) => Stream.Stream<AuthRequest, StreamError<EndpointOf<"authRequests", "get">>>
  /** The Docker container list, then again whenever it changed. */
  readonly watchContainers: (
    options?: StreamCallOptions<EndpointOf<"docker", "containers">>
  ) => Stream.Stream<ReadonlyArray<ContainerSummary>, StreamError<EndpointOf<"docker", "containers">>>
  /** A container's stats at the engine's cadence. */
  readonly watchContainerStats: (
    id: string,
    options?: StreamCallOptions<EndpointOf<"docker", "stats">>
  ) => Stream.Stream<ContainerStats, StreamError<EndpointOf<"docker", "stats">>>
  /** A container's last lines, then each new one until it stops (reconnected: a tail, see above). */
  readonly followContainerLogs: (
    id: string,
    query?: LogsQuery,
    options?: StreamCallOptions<EndpointOf<"docker", "logs">>
  ) => Stream.Stream<ContainerLogLine, StreamError<EndpointOf<"docker", "logs">>>
  /** The uptime page of the query, then the page again after every sample (every second). Never ends by itself. */
  readonly watchUptime: (
    query?: UptimeMetricsQuery,
    options?: StreamCallOptions<EndpointOf<"metrics", "uptime">>
  ) => Stream.Stream<RouteUptimePage, StreamError<EndpointOf<"metrics", "uptime">>>
  /** A Proxmox VE node's stats every second. */
  readonly watchNodeStats: (
    node: string,
    options?: StreamCallOptions<EndpointOf<"hypervisor", "nodeStats">>
  ) => Stream.Stream<NodeStats, StreamError<EndpointOf<"hypervisor", "nodeStats">>>
  /** A guest's stats line every second. */
  readonly watchGuestStats: (
    node: string,
    vmid: number,
    options?: StreamCallOptions<EndpointOf<"hypervisor", "guestStats">>
  ) => Stream.Stream<string, StreamError<EndpointOf<"hypervisor", "guestStats">>>
  /** A journal's last `limit` lines, then each new line (over SSH on the node); ends when the command does. */
  readonly journal: (
    query: JournalQuery,
    options?: StreamCallOptions<EndpointOf<"hypervisor", "journal">>
  ) => Stream.Stream<string, StreamError<EndpointOf<"hypervisor", "journal">>>
  /** Files' last `limit` lines, then each new line (`tail -F` on the node or in a container). */
  readonly tail: (
    query: TailQuery,
    options?: StreamCallOptions<EndpointOf<"hypervisor", "tail">>
  ) => Stream.Stream<string, StreamError<EndpointOf<"hypervisor", "tail">>>
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
  /**
   * The id of the newest event of any category (`GET /events?limit=1`), `undefined` when the history holds none:
   * taken as an events watch with reconnect starts, it is where the watch picks up when it reconnects before it
   * delivered any event (see `resumeBeforeAnyEvent`).
   */
  readonly newestEventId: Effect.Effect<string | undefined, EndpointError<EndpointOf<"events", "list">>>
  /** In a browser page: characters of unread frames a stream holds before it fails (see `BrowserWebSocket`). */
  readonly maxQueuedChars?: number | undefined
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

/**
 * Builds the URL the way the derived client does, so bad parameters fail with the same `SchemaError`, and a base URL
 * that makes no URL (`127.0.0.1:8888`, without a scheme) with the same `InvalidUrlError`, for `request`.
 */
const buildUrl = (
  build: () => string,
  request: Effect.Effect<HttpClientRequest.HttpClientRequest>
): Effect.Effect<string, Schema.SchemaError | HttpClientError.HttpClientError> =>
  Effect.try({ try: build, catch: (error) => error }).pipe(
    Effect.catch(
      (error): Effect.Effect<never, Schema.SchemaError | HttpClientError.HttpClientError> =>
        Schema.isSchemaError(error)
          ? Effect.fail(error)
          : Effect.flatMap(request, (req) =>
              Effect.fail(
                new HttpClientError.HttpClientError({
                  reason: new HttpClientError.InvalidUrlError({
                    request: req,
                    cause: error,
                    description: String(error)
                  })
                })
              )
            )
    )
  )

/**
 * How a stream goes on after a reconnect: the request it is opened with after the last frame it delivered
 * (`after`), and when it delivered none yet (`beforeAny`; without it, the first request again).
 */
interface Resume {
  readonly resumption: Resumption
  readonly after?: (last: string) => Effect.Effect<unknown, Schema.SchemaError>
  readonly beforeAny?: unknown
}

/** What one connection fails with before its frames are decoded (a refusal's typed errors are typed per endpoint). */
type ConnectionError = Schema.SchemaError | HttpClientError.HttpClientError | WebSocketClosed

const snapshot: Resume = { resumption: "snapshot" }
const logTail: Resume = { resumption: "tail" }

// The last event delivered, read again from its frame for its id (once per reconnect).
const decodeEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(StreamEndpoints.events.frame))

/** The WebSocket streams of the Gatehouse API, decoded with the domain schemas. */
export const makeStreams = (options: StreamOptions): GatehouseStreams => {
  const urls = HttpApiClient.urlBuilder(GatehouseApi, { baseUrl: options.baseUrl })
  // Path and query only: the request an `InvalidUrlError` names when the base URL makes no URL.
  const paths = HttpApiClient.urlBuilder(GatehouseApi)
  const headers: Record<string, string> =
    options.authorization === undefined ? {} : { authorization: options.authorization }

  const connect = <E>(
    url: Effect.Effect<string, Schema.SchemaError | HttpClientError.HttpClientError>,
    endpoint: {
      readonly refused: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, E>
      readonly plainGetActs: boolean
    }
  ) =>
    Effect.flatMap(url, (u) =>
      openWebSocket({
        url: u,
        headers,
        refused: endpoint.refused,
        plainGetActs: endpoint.plainGetActs,
        handshakeTimeoutMs: options.handshakeTimeoutMs,
        maxQueuedChars: options.maxQueuedChars
      })
    )

  // A declared stream's URL and refusal decoding come from the HttpApi endpoint it names, its frames' schema from
  // the declaration: nothing here is written per endpoint.
  const endpointOf = <S extends StreamEndpoint>(endpoint: S) => {
    type Builders = Record<string, Record<string, (request?: unknown) => string>>
    const build = (urls as unknown as Builders)[endpoint.group]![endpoint.endpoint]!
    const buildPath = (paths as unknown as Builders)[endpoint.group]![endpoint.endpoint]!
    const requestOf = (request: unknown) =>
      Effect.try(() => HttpClientRequest.prependUrl(HttpClientRequest.get(buildPath(request)), options.baseUrl)).pipe(
        Effect.orElseSucceed(() => HttpClientRequest.get(options.baseUrl))
      )
    const refused = HttpApiClient.decodeResponse(GatehouseApi, {
      group: endpoint.group,
      endpoint: endpoint.endpoint
    } as never) as (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, never>
    return {
      url: (request?: unknown) => buildUrl(() => build(request), requestOf(request)),
      refused,
      plainGetActs: endpoint.plainGetActs
    }
  }

  // Without `reconnect`, one connection; with it, connections one after another (see `ReconnectingStream`), each
  // opened with the request `resume` makes of the last frame delivered, or of none delivered yet.
  const subscribe = <S extends StreamEndpoint>(
    endpoint: S,
    request: unknown,
    callOptions: WatchOptions<ConnectionError> | undefined,
    resume: Resume = snapshot
  ) => {
    const { url, ...declared } = endpointOf(endpoint)
    const open = (r: unknown) => Effect.map(connect(url(r), declared), (socket) => socket.frames)
    const reconnect = reconnectOptionsOf(callOptions)
    const frames =
      reconnect === undefined
        ? Stream.unwrap(open(request))
        : reconnecting<string, ConnectionError>({
            connect: (last, reconnected) =>
              last !== undefined && resume.after !== undefined
                ? Effect.flatMap(resume.after(last), open)
                : open(reconnected ? (resume.beforeAny ?? request) : request),
            retryable: isRetryable,
            resumption: resume.resumption,
            options: reconnect
          })
    return frames.pipe(decodeFrames(endpoint))
  }

  const watchHealth = (o?: WatchOptions) => subscribe(StreamEndpoints.health, undefined, o)

  // Resumed after the last event delivered: the server replays what came since, or refuses with EventsTrimmed (410)
  // or EventNotFound (404) when its history no longer reaches back that far, which fails the stream: never a gap.
  // Before any event was delivered: from its own `since`, or from the newest event when the watch started.
  // A replay the trimming overtook closes with its error's message, read back into that error.
  const watchEvents = (query: EventsQuery = {}, o?: WatchOptions) => {
    const after = (last: string) => Effect.map(decodeEvent(last), (event) => ({ query: { ...query, since: event.id } }))
    const watched =
      reconnectOptionsOf(o) === undefined || query.since !== undefined
        ? subscribe(StreamEndpoints.events, { query }, o, { resumption: "exact", after })
        : Stream.unwrap(
            // A bad query fails first, as it does without reconnect, before the newest event is asked for.
            Effect.map(
              Effect.andThen(endpointOf(StreamEndpoints.events).url({ query }), options.newestEventId),
              (newest) =>
                subscribe(StreamEndpoints.events, { query }, o, {
                  resumption: "exact",
                  after,
                  beforeAny: { query: resumeBeforeAnyEvent(query, newest) }
                })
            )
          )
    return Stream.mapError(watched, (error) =>
      error instanceof WebSocketClosed ? (eventsResumeErrorOfClose(error.code, error.reason) ?? error) : error
    )
  }

  const watchRoutes = (o?: WatchOptions) => subscribe(StreamEndpoints.routes, undefined, o)

  const watchAuthRequest = (authId: string, o?: WatchOptions) =>
    subscribe(StreamEndpoints.authRequest, { params: { auth_id: authId } }, o)

  const validateStream = <E>(documents: Stream.Stream<string, E>) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const { url, ...declared } = endpointOf(StreamEndpoints.validate)
        const socket = yield* connect(url(), declared)
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

  const watchUptime = (query: UptimeMetricsQuery = {}, o?: WatchOptions) =>
    subscribe(StreamEndpoints.uptime, { query }, o)
  const watchNodeStats = (node: string, o?: WatchOptions) =>
    subscribe(StreamEndpoints.nodeStats, { params: { node } }, o)
  const watchGuestStats = (node: string, vmid: number, o?: WatchOptions) =>
    subscribe(StreamEndpoints.guestStats, { params: { node, vmid } }, o)
  // A log tail has no position to resume from (lines are not unique, and a limit of 0 does not exist): it is asked
  // for again, its last lines included. Dropping lines that look repeated would also drop real ones ("ping ok").
  const journal = (query: JournalQuery, o?: WatchOptions) => subscribe(StreamEndpoints.journal, { query }, o, logTail)
  const tail = (query: TailQuery, o?: WatchOptions) => subscribe(StreamEndpoints.tail, { query }, o, logTail)
  const watchContainers = (o?: WatchOptions) => subscribe(StreamEndpoints.dockerContainers, undefined, o)
  const watchContainerStats = (id: string, o?: WatchOptions) =>
    subscribe(StreamEndpoints.dockerStats, { params: { id } }, o)
  const followContainerLogs = (id: string, query: LogsQuery = {}, o?: WatchOptions) =>
    subscribe(StreamEndpoints.dockerLogs, { params: { id }, query }, o, logTail)

  // Not reconnected: a renewal opened again would start another one.
  const renewCertificates = (name?: string) =>
    subscribe(StreamEndpoints.certRenew, { query: name === undefined ? {} : { name } }, undefined)

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
