import type { StreamEndpoint } from "@gatehouse-edge/contract/api"
import { InvalidArgument, type PermissionDenied, type RateLimited, UpgradeRequired } from "@gatehouse-edge/core/domain"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { clientAddressOf } from "./ClientAddress.js"
import { checkUpgradeOrigin } from "./OriginCheck.js"
import { pathOf, shortened } from "./RequestedPath.js"
import { HeldStreamPlace, WebSocketConnections } from "./WebSocketConnections.js"
import { serveWebSocket } from "./WebSocketSession.js"

/**
 * Whether this request is a WebSocket handshake (RFC 6455: `Upgrade: websocket` and `Connection: upgrade`). An
 * `Upgrade` header alone is not one: Node serves such a request as a plain one, and it is answered as one.
 */
export const isWebSocketUpgrade = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.headers.upgrade?.toLowerCase() === "websocket" &&
  /(?:^|,)\s*upgrade\s*(?:,|$)/i.test(request.headers.connection ?? "")

// A handshake's origin is checked, and its stream's place taken, before `upgrade` does anything: what it prepares
// can have effects (a renewal started, a remote command checked over SSH), a WebSocket carries no CSRF token, only
// its origin, and a client over its stream cap must not start work it will not get. The place is held until the
// stream's socket is gone (serving it takes no second one).
const handshake = <S, A, E, R>(
  endpoint: S,
  request: HttpServerRequest.HttpServerRequest,
  upgrade: (endpoint: S) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | PermissionDenied | RateLimited, Exclude<R, Scope.Scope> | WebSocketConnections> =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* checkUpgradeOrigin(request)
      const place = yield* (yield* WebSocketConnections).acquire(clientAddressOf(request))
      return yield* Effect.provideService(upgrade(endpoint), HeldStreamPlace, place)
    })
  )

/**
 * Answers a request to the endpoint of a stream declared `upgradeOnly: true`: a WebSocket handshake from an
 * allowed origin, within the stream caps, gets what `upgrade` serves (`serveStream(endpoint, ...)`); any other
 * request the 426 the contract documents, naming the path it asked for. Its type takes only such a declaration, so
 * a handler answers the way its stream is declared.
 */
export const streamOnly = <S extends StreamEndpoint & { readonly upgradeOnly: true }, A, E, R>(
  endpoint: S,
  request: HttpServerRequest.HttpServerRequest,
  upgrade: (endpoint: S) => Effect.Effect<A, E, R>
): Effect.Effect<
  A,
  E | UpgradeRequired | PermissionDenied | RateLimited,
  Exclude<R, Scope.Scope> | WebSocketConnections
> =>
  isWebSocketUpgrade(request)
    ? handshake(endpoint, request, upgrade)
    : Effect.fail(new UpgradeRequired({ path: shortened(pathOf(request)) }))

/**
 * Answers a request to the endpoint of a stream declared with a plain answer (`upgradeOnly: false`): a WebSocket
 * handshake from an allowed origin, within the stream caps, gets what `upgrade` serves, any other request `plain`
 * (the snapshot the stream starts from).
 */
export const streamOrPlain = <S extends StreamEndpoint & { readonly upgradeOnly: false }, A, E, R, A2, E2, R2>(
  endpoint: S,
  request: HttpServerRequest.HttpServerRequest,
  upgrade: (endpoint: S) => Effect.Effect<A, E, R>,
  plain: Effect.Effect<A2, E2, R2>
): Effect.Effect<
  A | A2,
  E | E2 | PermissionDenied | RateLimited,
  Exclude<R, Scope.Scope> | R2 | WebSocketConnections
> => (isWebSocketUpgrade(request) ? handshake(endpoint, request, upgrade) : plain)

type Frame<S extends StreamEndpoint> = S["frame"]["Type"]
type Input<S extends StreamEndpoint> = S["input"] extends Schema.Top ? S["input"]["Type"] : never

// Frames are encoded with the declared schema, so a frame is exactly what the HTTP body of the same value is; a
// text stream's frame is the line itself.
const makeEncoder = <S extends StreamEndpoint>(endpoint: S): ((frame: Frame<S>) => string) => {
  if (endpoint.encoding === "text") return (frame: Frame<S>): string => frame as string
  if (endpoint.framesAsJson) return endpoint.toJson ?? ((frame: Frame<S>): string => JSON.stringify(frame))
  return Schema.encodeSync(Schema.fromJsonString(endpoint.frame as unknown as Schema.Codec<Frame<S>, unknown>)) as (
    frame: Frame<S>
  ) => string
}

const encoders = new WeakMap<StreamEndpoint, (frame: never) => string>()

/**
 * The endpoint's frame encoder, one per endpoint, remembering the text of each object frame it encoded. A shared
 * stream (health, uptime pages, a follow's lines) hands the same frame object to every watcher: it is encoded once,
 * not once per watcher (150 watchers of one 282 KB uptime page encoded it 150 times a second). Frames are
 * immutable values, so the text of one never changes; an entry goes with its frame.
 */
export const frameEncoder = <S extends StreamEndpoint>(endpoint: S): ((frame: Frame<S>) => string) => {
  const known = encoders.get(endpoint)
  if (known !== undefined) return known as (frame: Frame<S>) => string
  const encode = makeEncoder(endpoint)
  const texts = new WeakMap<object, string>()
  const cached = (frame: Frame<S>): string => {
    if (typeof frame !== "object" || frame === null) return encode(frame)
    let text = texts.get(frame)
    if (text === undefined) {
      text = encode(frame)
      texts.set(frame, text)
    }
    return text
  }
  encoders.set(endpoint, cached)
  return cached
}

// A client message is the encoded form of the declared input schema (the text of the frame).
const decoder = <S extends StreamEndpoint>(endpoint: S) => {
  const decode = Schema.decodeUnknownEffect(endpoint.input as unknown as Schema.Codec<Input<S>, unknown>)
  return (text: string): Effect.Effect<Input<S>, InvalidArgument> =>
    Effect.mapError(
      decode(text) as Effect.Effect<Input<S>, Schema.SchemaError>,
      (error) => new InvalidArgument({ message: `invalid message: ${error.message}`, issues: [] })
    )
}

/**
 * Serves a declared stream on the current request, after the checks that must come before an upgrade (auth has
 * already run as the endpoint's middleware; this adds the same-origin check): each value of `frames` becomes one
 * text frame encoded with the declared schema; client messages are ignored. The stream closes with 1000 when
 * `frames` ends, and with the close code of the error's machine code when it fails.
 */
export const serveStream = <S extends StreamEndpoint, E, R>(
  endpoint: S,
  frames: Stream.Stream<Frame<S>, E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  PermissionDenied | RateLimited,
  R | HttpServerRequest.HttpServerRequest | WebSocketConnections
> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const encode = frameEncoder(endpoint)
    return Effect.andThen(
      checkUpgradeOrigin(request),
      serveWebSocket((incoming) =>
        Stream.map(frames, encode).pipe(Stream.merge(Stream.drain(incoming), { haltStrategy: "left" }))
      )
    )
  })

/**
 * Serves a declared two-way stream: each client text message is decoded with the declared input schema (a
 * message that does not decode ends the stream with 1008) and `session` turns the messages into the frames to send.
 */
export const serveDuplexStream = <S extends StreamEndpoint, E, R>(
  endpoint: S,
  session: (inputs: Stream.Stream<Input<S>>) => Stream.Stream<Frame<S>, E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  PermissionDenied | RateLimited,
  R | HttpServerRequest.HttpServerRequest | WebSocketConnections
> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const encode = frameEncoder(endpoint)
    const decode = decoder(endpoint)
    return Effect.andThen(
      checkUpgradeOrigin(request),
      serveWebSocket((incoming) =>
        // A message that does not decode ends the stream (1008) after what was already answered.
        Effect.gen(function* () {
          const failed = yield* Deferred.make<never, InvalidArgument>()
          const inputs = Stream.mapEffect(incoming, (text) =>
            Effect.catch(decode(text), (error) => Effect.andThen(Deferred.fail(failed, error), Effect.never))
          )
          return Stream.map(session(inputs), encode).pipe(
            Stream.merge(Stream.fromEffectDrain(Deferred.await(failed)), { haltStrategy: "either" })
          )
        }).pipe(Stream.unwrap)
      )
    )
  })
