import { randomUUID } from "node:crypto"
import {
  ClientTooSlow,
  grants,
  MissingScope,
  missingScope,
  type Principal,
  RateLimited,
  type Scope,
  type ServerShuttingDown,
  scopeToCreate
} from "@gatehouse-edge/core/domain"
import { Authentication, AuthRequests } from "@gatehouse-edge/core/services"
import * as grpc from "@grpc/grpc-js"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type { CallAuthenticator } from "../CallAuthentication.js"
import type { CallLimits } from "../CallLimits.js"
import { logCall, requestIdMetadata, statusName } from "../CallLog.js"
import { type CallFailure, callFailure } from "../GrpcStatus.js"
import type { AuthRequest as ProtoAuthRequest } from "../gen/gatehouse/v1/AuthRequest.js"
import type { AuthServiceHandlers } from "../gen/gatehouse/v1/AuthService.js"
import { interruptedCallStatus } from "./InterruptedCallStatus.js"
import { asPageTokenError, fromProtoListRequest, toProtoListResponse } from "./ProtoListRequest.js"
import { fromProtoCreate, toProtoAuthRequest, toProtoNode, toProtoUser } from "./ProtoMapping.js"

type Services = AuthRequests | Authentication

/** How the handlers run: with the server's services, and how often a pending watch repeats its state. */
export interface HandlerOptions {
  readonly context: Context.Context<Services>
  readonly authenticate: CallAuthenticator
  /** The scope each method declares in the protos (`requiredScopes()`). */
  readonly requiredScopes: Readonly<Record<string, Scope>>
  readonly heartbeatMs: number
  /** The listener's per-client and total caps on calls and streams. */
  readonly limits: CallLimits
  /** How long a watch waits for a client that does not read before ending it with `slow_consumer`. */
  readonly drainTimeoutMs: number
  /** Fails with `ServerShuttingDown` once the server begins to stop: open watches end with it at once. */
  readonly shuttingDown: Effect.Effect<never, ServerShuttingDown>
}

/**
 * The `gatehouse.v1.AuthService` handlers: each call takes a place within the listener's caps (RESOURCE_EXHAUSTED
 * past them), is authenticated, then runs the core operation as its own fiber (interrupted when the client
 * cancels), and answers with the result or with the status of its error.
 * The caller's scopes must grant the scope the method declares (PERMISSION_DENIED naming it otherwise).
 * `decided_by` is the authenticated principal's subject, never a field of the request.
 */
export const makeAuthServiceHandlers = (options: HandlerOptions): AuthServiceHandlers => {
  const run = Effect.runForkWith(options.context)

  // Authenticated and allowed: the method's declared scope, which the protos always have (checked at start).
  const authorize = (method: string, metadata: grpc.Metadata) =>
    Effect.flatMap(options.authenticate(metadata), (principal) => {
      const needed = options.requiredScopes[method] ?? "admin"
      return grants(principal.scopes, needed)
        ? Effect.succeed(principal)
        : Effect.fail(new MissingScope({ scope: needed }))
    })

  // Every call ends in one log line with its status and id, whichever way it ends (an answer, an error, the
  // client's cancel, a cap).
  const finish = (method: string, started: number, requestId: string, code: grpc.status, failure?: CallFailure) =>
    run(
      logCall({
        method: `gatehouse.v1.AuthService/${method}`,
        code: statusName(code),
        duration_ms: Date.now() - started,
        request_id: requestId,
        error: failure?.code
      })
    )

  const interruptedStatus = (call: Pick<grpc.ServerUnaryCall<unknown, unknown>, "getDeadline">): grpc.status =>
    interruptedCallStatus(call, Date.now())

  const unary = <Req, Res>(
    method: string,
    handle: (request: Req, principal: Principal) => Effect.Effect<Res, unknown, Services>
  ) => {
    const spanName = `AuthService.${method}`
    return (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
      const started = Date.now()
      const requestId = randomUUID()
      const fail = (failure: CallFailure) => {
        finish(method, started, requestId, failure.error.code ?? grpc.status.INTERNAL, failure)
        callback(failure.error)
      }
      const place = options.limits.call(call.getPeer())
      if (place instanceof RateLimited) return fail(callFailure(Cause.fail(place), requestId))
      // The call's span, without a stack trace: it would only name this line, and capturing one costs ~10 µs of a
      // call that is ~150 µs in all on a busy server (bench/auth-requests.ts).
      const fiber = run(
        Effect.withSpan(
          Effect.flatMap(authorize(method, call.metadata), (principal) => handle(call.request, principal)),
          spanName,
          { captureStackTrace: false }
        ).pipe(Effect.annotateLogs({ request_id: requestId }))
      )
      call.on("cancelled", () => run(Fiber.interrupt(fiber)))
      fiber.addObserver((exit) => {
        place()
        if (Exit.isSuccess(exit)) {
          finish(method, started, requestId, grpc.status.OK)
          return callback(null, exit.value, requestIdMetadata(requestId))
        }
        if (Cause.hasInterruptsOnly(exit.cause)) return finish(method, started, requestId, interruptedStatus(call))
        const failure = callFailure(exit.cause, requestId)
        if (failure.unexpected) logUnexpected(method, requestId, exit.cause)
        fail(failure)
      })
    }
  }

  const logUnexpected = (method: string, requestId: string, cause: Cause.Cause<unknown>) =>
    run(Effect.logError(`AuthService.${method} failed`, cause).pipe(Effect.annotateLogs({ request_id: requestId })))

  const service = Context.get(options.context, AuthRequests)
  const authentication = Context.get(options.context, Authentication)

  return {
    AuthRegister: unary("AuthRegister", (request: { user: string; authId: string }, principal) =>
      service
        .register(request.authId, request.user, principal.subject)
        .pipe(Effect.map((node) => ({ node: toProtoNode(node) })))
    ),
    AuthApprove: unary("AuthApprove", (request: { authId: string }, principal) =>
      service.approve(request.authId, principal.subject).pipe(Effect.as({}))
    ),
    AuthReject: unary("AuthReject", (request: { authId: string }, principal) =>
      service.reject(request.authId, principal.subject).pipe(Effect.as({}))
    ),
    // The method asks for `auth_requests:create`; a registration needs write (see `scopeToCreate`).
    CreateAuthRequest: unary("CreateAuthRequest", (request: Parameters<typeof fromProtoCreate>[0], principal) =>
      fromProtoCreate(request).pipe(
        Effect.flatMap((input) => {
          const missing = missingScope(principal.scopes, scopeToCreate(input.kind))
          return Effect.andThen(
            missing === undefined ? Effect.void : Effect.fail(new MissingScope({ scope: missing })),
            service.create(input, principal)
          )
        }),
        Effect.map((created) => ({ authRequest: toProtoAuthRequest(created) }))
      )
    ),
    GetAuthRequest: unary("GetAuthRequest", (request: { authId: string }) =>
      service.get(request.authId).pipe(Effect.map((found) => ({ authRequest: toProtoAuthRequest(found) })))
    ),
    ListAuthRequests: unary("ListAuthRequests", (request: Parameters<typeof fromProtoListRequest>[0]) =>
      fromProtoListRequest(request).pipe(
        Effect.flatMap((filter) => Effect.mapError(service.listPage(filter), asPageTokenError)),
        Effect.map(toProtoListResponse)
      )
    ),
    CreateUser: unary("CreateUser", (request: { name: string; displayName: string; email: string }) =>
      service
        .createUser({ name: request.name, display_name: request.displayName, email: request.email })
        .pipe(Effect.map((user) => ({ user: toProtoUser(user) })))
    ),
    ListUsers: unary("ListUsers", () =>
      service.listUsers.pipe(Effect.map((users) => ({ users: users.map(toProtoUser) })))
    ),
    ListNodes: unary("ListNodes", (request: { user: string }) =>
      service
        .listNodes(request.user === "" ? undefined : request.user)
        .pipe(Effect.map((nodes) => ({ nodes: nodes.map(toProtoNode) })))
    ),
    WatchAuthRequest: (call) => {
      const started = Date.now()
      const requestId = randomUUID()
      const fail = (failure: CallFailure) => {
        finish("WatchAuthRequest", started, requestId, failure.error.code ?? grpc.status.INTERNAL, failure)
        call.emit("error", failure.error)
      }
      const place = options.limits.stream(call.getPeer())
      if (place instanceof RateLimited) return fail(callFailure(Cause.fail(place), requestId))
      // One write at a time, waiting for 'drain' when the peer is slow: backpressure reaches the core stream. A
      // client that stops reading altogether is let go after a while, as on the WebSocket API.
      const write = (message: ProtoAuthRequest) =>
        Effect.callback<void>((resume) => {
          if (call.write(message)) return resume(Effect.void)
          const drained = () => resume(Effect.void)
          call.once("drain", drained)
          return Effect.sync(() => call.off("drain", drained))
        }).pipe(
          Effect.timeoutOrElse({
            duration: options.drainTimeoutMs,
            orElse: () => Effect.fail(new ClientTooSlow({ queued_bytes: call.writableLength }))
          })
        )
      const program = Effect.gen(function* () {
        const principal = yield* authorize("WatchAuthRequest", call.metadata)
        let last: ProtoAuthRequest | undefined
        const semaphore = yield* Semaphore.make(1)
        const send = (message: ProtoAuthRequest) => Semaphore.withPermits(semaphore, 1)(write(message))
        // While pending, the current state again every heartbeat: proxies keep the call open and the waiter
        // knows the server is alive. Raced with the watch, so a heartbeat that cannot be written ends the call.
        const heartbeat = Effect.repeat(
          Effect.suspend(() => (last === undefined ? Effect.void : send(last))),
          Schedule.spaced(options.heartbeatMs)
        ).pipe(Effect.delay(options.heartbeatMs), Effect.andThen(Effect.never))
        yield* service.watch(call.request.authId).pipe(
          Stream.runForEach((request) => {
            last = toProtoAuthRequest(request)
            return send(last)
          }),
          Effect.raceFirst(heartbeat),
          // The key is checked when the call starts only: the watch ends (UNAUTHENTICATED) when it is revoked or expires.
          Effect.raceFirst(authentication.validUntilRevoked(principal)),
          // A stopping server ends its watches (UNAVAILABLE, shutting_down), as the WebSocket API does with 1001,
          // rather than holding its shutdown for the grace period and then cutting them off.
          Effect.raceFirst(options.shuttingDown)
        )
      }).pipe(Effect.withSpan("AuthService.WatchAuthRequest"), Effect.annotateLogs({ request_id: requestId }))
      const fiber = run(program)
      call.on("cancelled", () => run(Fiber.interrupt(fiber)))
      fiber.addObserver((exit) => {
        place()
        if (Exit.isSuccess(exit)) {
          finish("WatchAuthRequest", started, requestId, grpc.status.OK)
          return call.end(requestIdMetadata(requestId))
        }
        if (Cause.hasInterruptsOnly(exit.cause))
          return finish("WatchAuthRequest", started, requestId, interruptedStatus(call))
        const failure = callFailure(exit.cause, requestId)
        if (failure.unexpected) logUnexpected("WatchAuthRequest", requestId, exit.cause)
        fail(failure)
      })
    }
  }
}
