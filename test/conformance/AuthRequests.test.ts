import { describe } from "@effect/vitest"
import { GatehouseClient } from "@gatehouse-edge/client"
import { AuthRequestsLive, EventBus, EventRepository, StoreLive } from "@gatehouse-edge/core"
import { errorCodeOf, type Principal } from "@gatehouse-edge/core/domain"
import { AuthRequests } from "@gatehouse-edge/core/services"
import { authServiceEffectClient, makeAuthServiceClient } from "@gatehouse-edge/transport-grpc/client"
import { Context, Effect, Layer, Stream } from "effect"
import { startTestServer } from "../support/TestServer.js"
import { type AuthRequestsBinding, authRequestsConformance, type Failure } from "./AuthRequestsConformance.js"

// The caller of the core binding: an operator, as the other bindings' admin key is.
const operator: Principal = { method: "session", subject: "user:conformance", roles: ["admin"], scopes: ["admin"] }

// Typed errors become their code and message, as a caller would read them; anything else fails the case loudly.
const asFailure = (error: unknown): Failure => ({
  code: errorCodeOf(error),
  message: error instanceof Error ? error.message : String(error)
})
const mapped = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(effect, asFailure)

describe("auth requests conformance: the core service", () => {
  authRequestsConformance(({ ttlMs }) =>
    Effect.gen(function* () {
      const context = yield* Layer.build(
        AuthRequestsLive.layer({ ...AuthRequestsLive.defaultConfig, ttlMs }).pipe(
          Layer.provide(EventBus.layer({ historyCap: 1000 })),
          Layer.provide(EventRepository.layer),
          Layer.provideMerge(StoreLive.layerMemory)
        )
      )
      const s = Context.get(context, AuthRequests)
      return {
        principal: "user:conformance",
        create: (input) => mapped(s.create(input, operator)),
        get: (id) => mapped(s.get(id)),
        list: (filter) => mapped(s.list(filter)),
        approve: (id) => mapped(Effect.asVoid(s.approve(id, "user:conformance"))),
        reject: (id) => mapped(Effect.asVoid(s.reject(id, "user:conformance"))),
        register: (id, user) => mapped(s.register(id, user, "user:conformance")),
        watch: (id) => Stream.mapError(s.watch(id), asFailure),
        createUser: (name) => mapped(s.createUser({ name })),
        listNodes: (user) => mapped(s.listNodes(user))
      } satisfies AuthRequestsBinding
    })
  )
})

const serverWith = (ttlMs: number) => startTestServer({ configYaml: `auth_requests: { ttl: ${ttlMs}ms }\n` })

describe("auth requests conformance: the HTTP binding (typed client, real server)", () => {
  authRequestsConformance(({ ttlMs }) =>
    Effect.gen(function* () {
      const server = yield* serverWith(ttlMs)
      const context = yield* Layer.build(GatehouseClient.layer({ baseUrl: server.baseUrl, apiKey: server.apiKey }))
      const c = Context.get(context, GatehouseClient).authRequests
      return {
        principal: "api-key:admin",
        create: (input) => mapped(c.create({ payload: input })),
        get: (id) => mapped(c.get({ params: { auth_id: id } })),
        list: (filter) =>
          mapped(
            c.list({
              // Every field the filter sets, none it leaves out (the query refuses an explicit undefined).
              query: Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined))
            })
          ),
        approve: (id) => mapped(Effect.asVoid(c.approve({ payload: { auth_id: id } }))),
        reject: (id) => mapped(Effect.asVoid(c.reject({ payload: { auth_id: id } }))),
        register: (id, user) => mapped(c.register({ payload: { auth_id: id, user } })),
        watch: (id) => Stream.mapError(c.watch(id), asFailure),
        createUser: (name) => mapped(c.createUser({ payload: { name } })),
        listNodes: (user) => mapped(c.listNodes({ query: { user } }))
      } satisfies AuthRequestsBinding
    })
  )
})

describe("auth requests conformance: the gRPC binding (gRPC client, real server)", () => {
  authRequestsConformance(({ ttlMs }) =>
    Effect.gen(function* () {
      const server = yield* serverWith(ttlMs)
      const raw = yield* Effect.acquireRelease(
        Effect.sync(() =>
          makeAuthServiceClient({ address: server.grpcAddress, apiKey: server.apiKey, insecure: true })
        ),
        (client) => Effect.sync(() => client.close())
      )
      const c = authServiceEffectClient(raw)
      const grpcFailure = (error: { readonly code: Failure["code"]; readonly message: string }): Failure => ({
        code: error.code,
        message: error.message
      })
      return {
        principal: "api-key:admin",
        create: (input) => Effect.mapError(c.create(input), grpcFailure),
        get: (id) => Effect.mapError(c.get(id), grpcFailure),
        list: (filter) => Effect.mapError(c.list(filter), grpcFailure),
        approve: (id) => Effect.mapError(c.approve(id), grpcFailure),
        reject: (id) => Effect.mapError(c.reject(id), grpcFailure),
        register: (id, user) => Effect.mapError(c.register(id, user), grpcFailure),
        watch: (id) => Stream.mapError(c.watch(id), grpcFailure),
        createUser: (name) => Effect.mapError(c.createUser({ name }), grpcFailure),
        listNodes: (user) => Effect.mapError(c.listNodes(user), grpcFailure)
      } satisfies AuthRequestsBinding
    })
  )
})
