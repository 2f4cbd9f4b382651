import {
  type AuthRequest,
  type AuthRequestFilter,
  listFilterFormProblem,
  type NewAuthRequest,
  type NewUser,
  type Node,
  type User
} from "@gatehouse-edge/core/domain"
import type * as grpc from "@grpc/grpc-js"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { AuthServiceCallError } from "./AuthServiceCallError.js"
import type { AuthRequest__Output } from "./gen/gatehouse/v1/AuthRequest.js"
import type { AuthServiceClient as RawClient } from "./gen/gatehouse/v1/AuthService.js"
import type { ListAuthRequestsResponse__Output } from "./gen/gatehouse/v1/ListAuthRequestsResponse.js"
import { toProtoListRequest } from "./handlers/ProtoListRequest.js"
import { fromProtoAuthRequest, fromProtoNode, fromProtoUser, toProtoCreate } from "./handlers/ProtoMapping.js"

// grpc.status.CANCELLED and DEADLINE_EXCEEDED (grpc-js is a type-only import here).
const CANCELLED = 1
const DEADLINE_EXCEEDED = 4

/** How the client waits for the server. */
export interface AuthServiceClientOptions {
  /**
   * How long a watch waits for its next message before it fails UNAVAILABLE (default 45 s): the server repeats a
   * pending state every 15 s, so silence means a server or a link that stopped without closing the connection
   * (a frozen process, a power loss), which nothing else would notice, even through a proxy that answers pings.
   */
  readonly watchSilenceMs?: number | undefined
  /** The deadline of each unary call (DEADLINE_EXCEEDED past it); none by default. */
  readonly callTimeoutMs?: number | undefined
}

/** Three of the server's 15 s heartbeats. */
export const defaultWatchSilenceMs = 45_000

/** One page of `ListAuthRequests`: pass `next_page_token` to `listPage` for the next one; empty after the last. */
export interface AuthRequestPageResponse {
  readonly auth_requests: ReadonlyArray<AuthRequest>
  readonly next_page_token: string
}

/** `gatehouse.v1.AuthService` as Effects on domain values (the same JSON shapes as the HTTP API). */
export interface AuthServiceEffectClient {
  readonly create: (input: NewAuthRequest) => Effect.Effect<AuthRequest, AuthServiceCallError>
  readonly get: (authId: string) => Effect.Effect<AuthRequest, AuthServiceCallError>
  /**
   * One page of the requests matching the filter, newest first: at most `filter.limit` (default and maximum
   * 1000), after the request `filter.before` (the `auth_id` of the last one of the page before).
   */
  readonly list: (filter?: AuthRequestFilter) => Effect.Effect<ReadonlyArray<AuthRequest>, AuthServiceCallError>
  /** One page and the token of the next (AIP-158): `pageToken` is the previous page's `next_page_token`. */
  readonly listPage: (
    filter?: AuthRequestFilter,
    pageToken?: string
  ) => Effect.Effect<AuthRequestPageResponse, AuthServiceCallError>
  /** Every matching request, newest first, a page (`filter.limit`, default 1000) per call as the stream is read. */
  readonly listAll: (filter?: AuthRequestFilter) => Stream.Stream<AuthRequest, AuthServiceCallError>
  readonly approve: (authId: string) => Effect.Effect<void, AuthServiceCallError>
  readonly reject: (authId: string) => Effect.Effect<void, AuthServiceCallError>
  readonly register: (authId: string, user: string) => Effect.Effect<Node, AuthServiceCallError>
  /**
   * The current state, then each change (and heartbeats while pending); ends after a final state. Fails
   * UNAVAILABLE when the server sends nothing for `watchSilenceMs` (45 s): retry it as a lost connection.
   */
  readonly watch: (authId: string) => Stream.Stream<AuthRequest, AuthServiceCallError>
  readonly createUser: (user: NewUser) => Effect.Effect<User, AuthServiceCallError>
  readonly listUsers: Effect.Effect<ReadonlyArray<User>, AuthServiceCallError>
  readonly listNodes: (user?: string) => Effect.Effect<ReadonlyArray<Node>, AuthServiceCallError>
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`

const unary = <Res>(client: RawClient, method: string, request: object, timeoutMs: number | undefined) =>
  Effect.callback<Res, AuthServiceCallError>((resume, signal) => {
    const options: grpc.CallOptions = timeoutMs === undefined ? {} : { deadline: Date.now() + timeoutMs }
    const call = (client as unknown as Record<string, Function>)[method]!.call(
      client,
      request,
      options,
      (error: grpc.ServiceError | null, response: Res) => {
        if (error === null) return resume(Effect.succeed(response))
        const failed = AuthServiceCallError.fromServiceError(error)
        // Our own deadline (the server sends its id with any status of its own): grpc-js's text lists its timings.
        const ownDeadline =
          timeoutMs !== undefined && error.code === DEADLINE_EXCEEDED && failed.requestId === undefined
        resume(
          Effect.fail(
            ownDeadline
              ? new AuthServiceCallError({
                  status: failed.status,
                  code: failed.code,
                  message: `no answer within ${seconds(timeoutMs)}`,
                  requestId: undefined,
                  details: undefined
                })
              : failed
          )
        )
      }
    ) as grpc.ClientUnaryCall
    // Interrupting the Effect cancels the call on the wire.
    signal.addEventListener("abort", () => call.cancel())
  })

const listPage = (client: RawClient, filter: AuthRequestFilter, pageToken: string | undefined, timeoutMs?: number) => {
  // Refused here as the server would refuse it, rather than sent in a form that reads otherwise (a page size 0 is
  // the default, an instant without a zone is no protobuf Timestamp).
  const refused = listFilterFormProblem(filter)
  if (refused !== undefined) return Effect.fail(AuthServiceCallError.invalidArgument(refused.field, refused.problem))
  return unary<ListAuthRequestsResponse__Output>(
    client,
    "ListAuthRequests",
    toProtoListRequest(filter, pageToken),
    timeoutMs
  ).pipe(
    Effect.map(
      (r): AuthRequestPageResponse => ({
        auth_requests: r.authRequests.map(fromProtoAuthRequest),
        next_page_token: r.nextPageToken
      })
    )
  )
}

/** Wraps a grpc-js client (see `makeAuthServiceClient`) as Effects; closing it stays with the caller. */
export const authServiceEffectClient = (
  client: RawClient,
  options: AuthServiceClientOptions = {}
): AuthServiceEffectClient => {
  const timeoutMs = options.callTimeoutMs
  const silenceMs = options.watchSilenceMs ?? defaultWatchSilenceMs
  return {
    create: (input) =>
      unary<{ authRequest: AuthRequest__Output }>(client, "CreateAuthRequest", toProtoCreate(input), timeoutMs).pipe(
        Effect.map((r) => fromProtoAuthRequest(r.authRequest))
      ),
    get: (authId) =>
      unary<{ authRequest: AuthRequest__Output }>(client, "GetAuthRequest", { authId }, timeoutMs).pipe(
        Effect.map((r) => fromProtoAuthRequest(r.authRequest))
      ),
    list: (filter = {}) => Effect.map(listPage(client, filter, undefined, timeoutMs), (page) => page.auth_requests),
    listPage: (filter = {}, pageToken) => listPage(client, filter, pageToken, timeoutMs),
    listAll: (filter = {}) =>
      // The first page from `filter.before` (if any), then each from the token the one before returned.
      Stream.paginate(undefined as string | undefined, (pageToken) =>
        Effect.map(listPage(client, filter, pageToken, timeoutMs), (page) => [
          page.auth_requests,
          page.next_page_token === "" ? Option.none() : Option.some(page.next_page_token)
        ])
      ),
    approve: (authId) => unary(client, "AuthApprove", { authId }, timeoutMs).pipe(Effect.asVoid),
    reject: (authId) => unary(client, "AuthReject", { authId }, timeoutMs).pipe(Effect.asVoid),
    register: (authId, user) =>
      unary<{ node: Parameters<typeof fromProtoNode>[0] }>(client, "AuthRegister", { authId, user }, timeoutMs).pipe(
        Effect.map((r) => fromProtoNode(r.node))
      ),
    watch: (authId) =>
      Stream.callback<AuthRequest, AuthServiceCallError>((queue) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            const call = client.WatchAuthRequest({ authId })
            const watch = { call, cancelledHere: false }
            call.on("data", (message: AuthRequest__Output) => {
              Queue.offerUnsafe(queue, fromProtoAuthRequest(message))
            })
            call.on("end", () => Queue.endUnsafe(queue))
            call.on("error", (error: grpc.ServiceError) => {
              // Our own cancel (the consumer left) is not a failure of the stream; a CANCELLED from the server or a
              // proxy is: the request may still be pending, and the watch must not look like it ended.
              if (watch.cancelledHere && error.code === CANCELLED) return
              Queue.failCauseUnsafe(queue, Cause.fail(AuthServiceCallError.fromServiceError(error)))
            })
            return watch
          }),
          (watch) =>
            Effect.sync(() => {
              watch.cancelledHere = true
              watch.call.cancel()
            })
        ).pipe(Effect.asVoid)
      ).pipe(
        // Each wait for the next message, from the server or from a proxy on the way, is bounded: past it the call
        // is cancelled and the watch fails as one whose connection was lost (UNAVAILABLE), which callers retry.
        Stream.timeoutOrElse({
          duration: silenceMs,
          orElse: () =>
            Stream.fail(AuthServiceCallError.unavailable(`no message from the server for ${seconds(silenceMs)}`))
        })
      ),
    createUser: (user) =>
      unary<{ user: Parameters<typeof fromProtoUser>[0] }>(
        client,
        "CreateUser",
        {
          name: user.name,
          displayName: user.display_name ?? "",
          email: user.email ?? ""
        },
        timeoutMs
      ).pipe(Effect.map((r) => fromProtoUser(r.user))),
    listUsers: unary<{ users: Array<Parameters<typeof fromProtoUser>[0]> }>(client, "ListUsers", {}, timeoutMs).pipe(
      Effect.map((r) => r.users.map(fromProtoUser))
    ),
    listNodes: (user) =>
      unary<{ nodes: Array<Parameters<typeof fromProtoNode>[0]> }>(
        client,
        "ListNodes",
        { user: user ?? "" },
        timeoutMs
      ).pipe(Effect.map((r) => r.nodes.map(fromProtoNode)))
  }
}
