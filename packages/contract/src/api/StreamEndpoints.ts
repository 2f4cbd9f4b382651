import type * as HttpApi from "effect/http-api/HttpApi"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import {
  type ApiErrorClass,
  AuthRequest,
  AuthRequestNotFound,
  CertRenewFrame,
  ClientTooSlow,
  ContainerLogLine,
  ContainerStats,
  ContainerSummary,
  DockerFailed,
  DockerHostUnreachable,
  Event,
  EventNotFound,
  EventsTrimmed,
  GuestNotFound,
  HealthMap,
  HypervisorNodeNotFound,
  InvalidArgument,
  NodeStats,
  ProxmoxAccessDenied,
  ProxmoxCertificateMismatch,
  ProxmoxCertificateUntrusted,
  ProxmoxFailed,
  ProxmoxTimedOut,
  ProxmoxUnreachable,
  RouteEntry,
  RouteUptimePage,
  RouteValidationMessage,
  ServerShuttingDown,
  SshFailed,
  SshHostKeyMismatch,
  SshUnreachable,
  SubscriberTooSlow,
  ValidationQueueFull,
  ValidationTimedOut,
  ValidationWorkerFailed
} from "../domain/index.js"
import type { GatehouseApi } from "./GatehouseApi.js"
import { logLineJson } from "./LogLineJson.js"

type Groups = typeof GatehouseApi extends HttpApi.HttpApi<infer _Id, infer G> ? G : never

/** The name of a group of the HTTP contract. */
export type StreamGroup = HttpApiGroup.Identifier<Groups>

/** The name of an endpoint of a group of the HTTP contract. */
export type StreamEndpointName<G extends StreamGroup> = HttpApiEndpoint.Identifier<
  HttpApiGroup.EndpointsWithIdentifier<Groups, G>
>

/**
 * One WebSocket stream of the API, declared next to the HTTP contract it extends. The path, parameters, auth and
 * refusal errors are those of the HttpApi endpoint it names (a WebSocket upgrade on the same path); this adds what
 * the upgrade carries. The server's upgrade branch, the client's stream methods and the OpenAPI document are all
 * derived from these declarations.
 */
export interface StreamEndpoint<
  G extends StreamGroup = StreamGroup,
  N extends StreamEndpointName<G> = StreamEndpointName<G>,
  Frame extends Schema.Top = Schema.Top,
  Input extends Schema.Top | undefined = Schema.Top | undefined,
  UpgradeOnly extends boolean = boolean
> {
  readonly group: G
  readonly endpoint: N
  /** Each server → client text frame is one value of this schema: JSON, or the text itself (`encoding: "text"`). */
  readonly frame: Frame
  /** `json` (default): a frame is the JSON encoding of the value; `text`: a frame is the string itself (one line). */
  readonly encoding: "json" | "text"
  /**
   * `true`: the handler builds every frame itself in exactly its wire form, so the server writes it with
   * `JSON.stringify` instead of encoding (and checking) each one with the schema — for streams of many small frames
   * (a chatty log: the schema's encoder costs a fifth of the server's CPU per line). Only for a frame schema that
   * encodes to itself (no transformation), which `declareStream` checks.
   */
  readonly framesAsJson: boolean
  /** With `framesAsJson`: a faster equivalent of `JSON.stringify` for this frame type (proven equal by a test). */
  // A method, so an endpoint of any frame type fits where endpoints of any type are taken (bivariant).
  toJson?(frame: Frame["Type"]): string
  /** Each client → server text frame (one document of this schema); `undefined`: client messages are ignored. */
  readonly input: Input
  /**
   * `true`: the endpoint only exists as a stream (a plain GET answers 426); else a plain GET answers a snapshot. A
   * literal type, so the server's handler of the endpoint can only answer the way it is declared here.
   */
  readonly upgradeOnly: UpgradeOnly
  /**
   * `true`: a plain GET of the endpoint acts (starts a renewal), it does not just read. A client must then never send
   * one in place of the upgrade, e.g. to learn why a browser's upgrade failed: that would act again, or unseen.
   */
  readonly plainGetActs: boolean
  /** When the server ends the stream normally (1000). */
  readonly ends: string
  /** The errors that can end this stream besides the ones every stream has; each closes with its code's close code. */
  readonly errors: ReadonlyArray<ApiErrorClass>
  readonly summary: string
}

export const declareStream = <
  G extends StreamGroup,
  N extends StreamEndpointName<G>,
  Frame extends Schema.Top,
  Input extends Schema.Top | undefined = undefined,
  UpgradeOnly extends boolean = false
>(
  definition: Omit<
    StreamEndpoint<G, N, Frame, Input, UpgradeOnly>,
    "input" | "upgradeOnly" | "errors" | "encoding" | "framesAsJson" | "toJson" | "plainGetActs"
  > & {
    readonly input?: Input
    readonly encoding?: "json" | "text"
    readonly framesAsJson?: boolean
    readonly toJson?: (frame: Frame["Type"]) => string
    readonly upgradeOnly?: UpgradeOnly
    readonly plainGetActs?: boolean
    readonly errors?: ReadonlyArray<ApiErrorClass>
  }
): StreamEndpoint<G, N, Frame, Input, UpgradeOnly> => {
  if (definition.framesAsJson === true && SchemaAST.toEncoded(definition.frame.ast) !== definition.frame.ast) {
    throw new Error(
      `stream ${definition.group}.${definition.endpoint}: framesAsJson needs a frame schema without encoding`
    )
  }
  return {
    ...definition,
    input: definition.input as Input,
    encoding: definition.encoding ?? "json",
    framesAsJson: definition.framesAsJson ?? false,
    ...(definition.framesAsJson === true && definition.toJson !== undefined ? { toJson: definition.toJson } : {}),
    upgradeOnly: definition.upgradeOnly ?? (false as UpgradeOnly),
    plainGetActs: definition.plainGetActs ?? false,
    errors: definition.errors ?? []
  }
}

// A stream of a remote command's output lines, one text frame per line.
const declareLines = <N extends StreamEndpointName<"hypervisor">>(endpoint: N, what: string) =>
  declareStream({
    group: "hypervisor",
    endpoint,
    frame: Schema.String,
    encoding: "text",
    upgradeOnly: true,
    summary: `${what}: the last \`limit\` lines, then each new one, as text frames`,
    ends: "when the remote command exits; SSH failures close it with 1011 and the reason",
    errors: [SshUnreachable, SshHostKeyMismatch, SshFailed]
  })

/** The errors that can end any stream: the server shutting down (1001) and a client that does not read (1008). */
export const StreamErrorsOfEveryStream: ReadonlyArray<ApiErrorClass> = [ServerShuttingDown, ClientTooSlow]

/** Every WebSocket stream of the API. Adding one is an entry here plus the handler that serves it. */
export const StreamEndpoints = {
  health: declareStream({
    group: "health",
    endpoint: "get",
    frame: HealthMap,
    summary: "The health map, then again at most once per second when a status or the set of routes changes",
    ends: "never: it follows the routes until the client closes"
  }),
  events: declareStream({
    group: "events",
    endpoint: "list",
    frame: Event,
    summary: "The matching history (newest last), then each new matching event",
    ends: "never: it follows the event bus until the client closes",
    // A resume whose `since` the trimming overtakes during its replay (one checked before the upgrade is a 410/404).
    errors: [SubscriberTooSlow, EventsTrimmed, EventNotFound]
  }),
  routes: declareStream({
    group: "routes",
    endpoint: "list",
    frame: Schema.Array(RouteEntry),
    summary: "The route list, then the list again on every route change or health status change",
    ends: "never: it follows the route table until the client closes"
  }),
  validate: declareStream({
    group: "routes",
    endpoint: "validateStream",
    frame: RouteValidationMessage,
    input: Schema.String.annotate({ description: "A YAML document: one route with `alias`, or a map alias → route" }),
    upgradeOnly: true,
    summary: "Each client text message is a YAML document; the server answers a frame per route, then a done frame",
    ends: "when the client closes (every document sent before is answered first)",
    // A large document is validated on a worker thread: all busy (1013), too slow or a worker failure (1011).
    errors: [ValidationQueueFull, ValidationTimedOut, ValidationWorkerFailed]
  }),
  authRequest: declareStream({
    group: "authRequests",
    endpoint: "get",
    frame: AuthRequest,
    summary: "The request's current state, then each change",
    ends: "after a final state (approved, rejected, expired, registered): at once for a decided request",
    errors: [InvalidArgument, AuthRequestNotFound]
  }),
  nodeStats: declareStream({
    group: "hypervisor",
    endpoint: "nodeStats",
    frame: NodeStats,
    summary: "The node's stats every second, polled once for all watchers of the node",
    ends:
      "never: it polls until the client closes; a failed poll (5xx, no answer) sends no frame, while one that will " +
      "not pass (4xx, certificate) or failures lasting 30 s close it (1011)",
    errors: [
      HypervisorNodeNotFound,
      ProxmoxUnreachable,
      ProxmoxFailed,
      ProxmoxAccessDenied,
      ProxmoxCertificateMismatch,
      ProxmoxCertificateUntrusted,
      ProxmoxTimedOut
    ]
  }),
  guestStats: declareStream({
    group: "hypervisor",
    endpoint: "guestStats",
    frame: Schema.String,
    encoding: "text",
    summary: "The guest's stats line every second, from the resource cache",
    ends: "never: it follows the cache until the client closes; a guest that disappears closes it (1008)",
    errors: [
      GuestNotFound,
      ProxmoxUnreachable,
      ProxmoxFailed,
      ProxmoxAccessDenied,
      ProxmoxCertificateMismatch,
      ProxmoxCertificateUntrusted,
      ProxmoxTimedOut
    ]
  }),
  dockerContainers: declareStream({
    group: "docker",
    endpoint: "containers",
    frame: Schema.Array(ContainerSummary),
    summary: "The container list, then again whenever it changed (checked every 5 s, once for all watchers)",
    ends: "never: it follows the engines until the client closes; no engine answering closes it (1011)",
    errors: [DockerHostUnreachable, DockerFailed]
  }),
  dockerStats: declareStream({
    group: "docker",
    endpoint: "stats",
    frame: ContainerStats,
    summary: "A stats sample at the engine's cadence (about 1 s for Docker, 5 s for Podman); one engine stream for all",
    ends: "when the container stops or is removed; the engine failing closes it (1011)",
    errors: [DockerHostUnreachable, DockerFailed]
  }),
  dockerLogs: declareStream({
    group: "docker",
    endpoint: "logs",
    frame: ContainerLogLine,
    // Built by the log decoder, many per second from a chatty container.
    framesAsJson: true,
    toJson: logLineJson,
    summary: "The last `limit` lines, then each new line; one engine follow for all watchers of the same query",
    ends: "when the container stops; the engine failing (its daemon stopped) closes it with 1011 and the reason",
    errors: [DockerHostUnreachable, DockerFailed]
  }),
  certRenew: declareStream({
    group: "certs",
    endpoint: "renew",
    frame: CertRenewFrame,
    // `GET /cert/renew` is the renewal (answered when it is done).
    plainGetActs: true,
    summary:
      "Starts a renewal: a progress frame per step (order_placed, challenge_served and validated per name, issued, " +
      "installed), then one result frame `{ok, certs?}` or `{ok: false, error: {code, message}}`",
    ends: "after the result frame; closing early does not stop the renewal"
  }),
  uptime: declareStream({
    group: "metrics",
    endpoint: "uptime",
    frame: RouteUptimePage,
    // Pages of up to 100,000 points every second, built by the core in their wire form.
    framesAsJson: true,
    summary: "The uptime page of the query, then the page again after every sample (every second)",
    ends: "never: it follows the samples until the client closes"
  }),
  journal: declareLines("journal", "The journal of the node (or of container `vmid`)"),
  nodeJournal: declareLines("nodeJournal", "The node's journal"),
  guestJournal: declareLines("guestJournal", "The container's journal"),
  unitJournal: declareLines("unitJournal", "One unit's journal in the container (or on the node with vmid 0)"),
  tail: declareLines("tail", "The files' last lines, then each new line (`tail -F`)")
} as const

/** Any declared stream endpoint. */
export type AnyStreamEndpoint = (typeof StreamEndpoints)[keyof typeof StreamEndpoints]
