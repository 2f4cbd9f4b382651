import type { AuthRequest, AuthRequestFilter, NewAuthRequest, NewUser, Node, User } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import {
  type AuthRequestPageResponse,
  type AuthServiceClientOptions,
  authServiceEffectClient
} from "./AuthServiceClient.js"
import type { AuthServiceClient as RawClient } from "./gen/gatehouse/v1/AuthService.js"

/** `gatehouse.v1.AuthService` as Promises (rejecting with `AuthServiceCallError`) and an async-iterable watch. */
export interface AuthServicePromiseClient {
  readonly create: (input: NewAuthRequest) => Promise<AuthRequest>
  readonly get: (authId: string) => Promise<AuthRequest>
  /** One page (at most `filter.limit`, default 1000), after `filter.before`. */
  readonly list: (filter?: AuthRequestFilter) => Promise<ReadonlyArray<AuthRequest>>
  /** One page and the `next_page_token` to pass for the next one (empty after the last). */
  readonly listPage: (filter?: AuthRequestFilter, pageToken?: string) => Promise<AuthRequestPageResponse>
  /** `for await` every matching request, newest first, fetched a page at a time; `break` stops fetching. */
  readonly listAll: (filter?: AuthRequestFilter) => AsyncIterable<AuthRequest>
  readonly approve: (authId: string) => Promise<void>
  readonly reject: (authId: string) => Promise<void>
  readonly register: (authId: string, user: string) => Promise<Node>
  /** `for await` the states; `break` cancels the call. */
  readonly watch: (authId: string) => AsyncIterable<AuthRequest>
  readonly createUser: (user: NewUser) => Promise<User>
  readonly listUsers: () => Promise<ReadonlyArray<User>>
  readonly listNodes: (user?: string) => Promise<ReadonlyArray<Node>>
}

/** The Promise facade over a grpc-js client (see `makeAuthServiceClient`). */
export const authServicePromiseClient = (
  client: RawClient,
  options: AuthServiceClientOptions = {}
): AuthServicePromiseClient => {
  const effects = authServiceEffectClient(client, options)
  return {
    create: (input) => Effect.runPromise(effects.create(input)),
    get: (authId) => Effect.runPromise(effects.get(authId)),
    list: (filter) => Effect.runPromise(effects.list(filter)),
    listPage: (filter, pageToken) => Effect.runPromise(effects.listPage(filter, pageToken)),
    listAll: (filter) => Stream.toAsyncIterable(effects.listAll(filter)),
    approve: (authId) => Effect.runPromise(effects.approve(authId)),
    reject: (authId) => Effect.runPromise(effects.reject(authId)),
    register: (authId, user) => Effect.runPromise(effects.register(authId, user)),
    watch: (authId) => Stream.toAsyncIterable(effects.watch(authId)),
    createUser: (user) => Effect.runPromise(effects.createUser(user)),
    listUsers: () => Effect.runPromise(effects.listUsers),
    listNodes: (user) => Effect.runPromise(effects.listNodes(user))
  }
}
