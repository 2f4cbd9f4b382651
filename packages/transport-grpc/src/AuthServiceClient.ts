import type { AuthRequest, AuthRequestFilter, NewAuthRequest, NewUser, Node, User } from "@gatehouse-edge/core/domain"
import type * as grpc from "@grpc/grpc-js"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { AuthServiceCallError } from "./AuthServiceCallError.js"
import type { AuthRequest__Output } from "./gen/gatehouse/v1/AuthRequest.js"
import type { AuthServiceClient as RawClient } from "./gen/gatehouse/v1/AuthService.js"
import {
  fromProtoAuthRequest,
  fromProtoNode,
  fromProtoUser,
  toProtoCreate,
  toProtoFilter
} from "./handlers/ProtoMapping.js"

// grpc.status.CANCELLED (grpc-js is a type-only import here).
const CANCELLED = 1

/** `gatehouse.v1.AuthService` as Effects on domain values (the same JSON shapes as the HTTP API). */
export interface AuthServiceEffectClient {
  readonly create: (input: NewAuthRequest) => Effect.Effect<AuthRequest, AuthServiceCallError>
  readonly get: (authId: string) => Effect.Effect<AuthRequest, AuthServiceCallError>
  readonly list: (filter?: AuthRequestFilter) => Effect.Effect<ReadonlyArray<AuthRequest>, AuthServiceCallError>
  readonly approve: (authId: string) => Effect.Effect<void, AuthServiceCallError>
  readonly reject: (authId: string) => Effect.Effect<void, AuthServiceCallError>
  readonly register: (authId: string, user: string) => Effect.Effect<Node, AuthServiceCallError>
  /** The current state, then each change (and heartbeats while pending); ends after a final state. */
  readonly watch: (authId: string) => Stream.Stream<AuthRequest, AuthServiceCallError>
  readonly createUser: (user: NewUser) => Effect.Effect<User, AuthServiceCallError>
  readonly listUsers: Effect.Effect<ReadonlyArray<User>, AuthServiceCallError>
  readonly listNodes: (user?: string) => Effect.Effect<ReadonlyArray<Node>, AuthServiceCallError>
}

const unary = <Res>(client: RawClient, method: string, request: object) =>
  Effect.callback<Res, AuthServiceCallError>((resume, signal) => {
    const call = (client as unknown as Record<string, Function>)[method]!.call(
      client,
      request,
      (error: grpc.ServiceError | null, response: Res) =>
        resume(error === null ? Effect.succeed(response) : Effect.fail(AuthServiceCallError.fromServiceError(error)))
    ) as grpc.ClientUnaryCall
    // Interrupting the Effect cancels the call on the wire.
    signal.addEventListener("abort", () => call.cancel())
  })

/** Wraps a grpc-js client (see `makeAuthServiceClient`) as Effects; closing it stays with the caller. */
export const authServiceEffectClient = (client: RawClient): AuthServiceEffectClient => ({
  create: (input) =>
    unary<{ authRequest: AuthRequest__Output }>(client, "CreateAuthRequest", toProtoCreate(input)).pipe(
      Effect.map((r) => fromProtoAuthRequest(r.authRequest))
    ),
  get: (authId) =>
    unary<{ authRequest: AuthRequest__Output }>(client, "GetAuthRequest", { authId }).pipe(
      Effect.map((r) => fromProtoAuthRequest(r.authRequest))
    ),
  list: (filter = {}) =>
    unary<{ authRequests: Array<AuthRequest__Output> }>(client, "ListAuthRequests", toProtoFilter(filter)).pipe(
      Effect.map((r) => r.authRequests.map(fromProtoAuthRequest))
    ),
  approve: (authId) => unary(client, "AuthApprove", { authId }).pipe(Effect.asVoid),
  reject: (authId) => unary(client, "AuthReject", { authId }).pipe(Effect.asVoid),
  register: (authId, user) =>
    unary<{ node: Parameters<typeof fromProtoNode>[0] }>(client, "AuthRegister", { authId, user }).pipe(
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
    ),
  createUser: (user) =>
    unary<{ user: Parameters<typeof fromProtoUser>[0] }>(client, "CreateUser", {
      name: user.name,
      displayName: user.display_name ?? "",
      email: user.email ?? ""
    }).pipe(Effect.map((r) => fromProtoUser(r.user))),
  listUsers: unary<{ users: Array<Parameters<typeof fromProtoUser>[0]> }>(client, "ListUsers", {}).pipe(
    Effect.map((r) => r.users.map(fromProtoUser))
  ),
  listNodes: (user) =>
    unary<{ nodes: Array<Parameters<typeof fromProtoNode>[0]> }>(client, "ListNodes", { user: user ?? "" }).pipe(
      Effect.map((r) => r.nodes.map(fromProtoNode))
    )
})
