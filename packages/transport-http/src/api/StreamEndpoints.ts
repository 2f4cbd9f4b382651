import {
  type ApiErrorClass,
  AuthRequest,
  AuthRequestNotFound,
  ClientTooSlow,
  Event,
  HealthMap,
  InvalidArgument,
  RouteEntry,
  RouteValidationMessage,
  ServerShuttingDown,
  SubscriberTooSlow,
  ValidationQueueFull,
  ValidationTimedOut,
  ValidationWorkerFailed
} from "@gatehouse-edge/core/domain"
import { Schema } from "effect"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import type { GatehouseApi } from "./GatehouseApi.js"

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
  Input extends Schema.Top | undefined = Schema.Top | undefined
> {
  readonly group: G
  readonly endpoint: N
  /** Each server → client text frame is one JSON value of this schema. */
  readonly frame: Frame
  /** Each client → server text frame (one document of this schema); `undefined`: client messages are ignored. */
  readonly input: Input
  /** `true`: the endpoint only exists as a stream (a plain GET answers 426); else a plain GET answers a snapshot. */
  readonly upgradeOnly: boolean
  /** When the server ends the stream normally (1000). */
  readonly ends: string
  /** The errors that can end this stream besides the ones every stream has; each closes with its code's close code. */
  readonly errors: ReadonlyArray<ApiErrorClass>
  readonly summary: string
}

const declare = <
  G extends StreamGroup,
  N extends StreamEndpointName<G>,
  Frame extends Schema.Top,
  Input extends Schema.Top | undefined = undefined
>(
  definition: Omit<StreamEndpoint<G, N, Frame, Input>, "input" | "upgradeOnly" | "errors"> & {
    readonly input?: Input
    readonly upgradeOnly?: boolean
    readonly errors?: ReadonlyArray<ApiErrorClass>
  }
): StreamEndpoint<G, N, Frame, Input> => ({
  ...definition,
  input: definition.input as Input,
  upgradeOnly: definition.upgradeOnly ?? false,
  errors: definition.errors ?? []
})

/** The errors that can end any stream: the server shutting down (1001) and a client that does not read (1008). */
export const StreamErrorsOfEveryStream: ReadonlyArray<ApiErrorClass> = [ServerShuttingDown, ClientTooSlow]

/** Every WebSocket stream of the API. Adding one is an entry here plus the handler that serves it. */
export const StreamEndpoints = {
  health: declare({
    group: "health",
    endpoint: "get",
    frame: HealthMap,
    summary: "The health map, then again at most once per second when a status or the set of routes changes",
    ends: "never: it follows the routes until the client closes"
  }),
  events: declare({
    group: "events",
    endpoint: "list",
    frame: Event,
    summary: "The matching history (newest last), then each new matching event",
    ends: "never: it follows the event bus until the client closes",
    errors: [SubscriberTooSlow]
  }),
  routes: declare({
    group: "routes",
    endpoint: "list",
    frame: Schema.Array(RouteEntry),
    summary: "The route list, then the list again on every route change or health status change",
    ends: "never: it follows the route table until the client closes"
  }),
  validate: declare({
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
  authRequest: declare({
    group: "authRequests",
    endpoint: "get",
    frame: AuthRequest,
    summary: "The request's current state, then each change",
    ends: "after a final state (approved, rejected, expired, registered): at once for a decided request",
    errors: [InvalidArgument, AuthRequestNotFound]
  })
} as const

/** Any declared stream endpoint. */
export type AnyStreamEndpoint = (typeof StreamEndpoints)[keyof typeof StreamEndpoints]
