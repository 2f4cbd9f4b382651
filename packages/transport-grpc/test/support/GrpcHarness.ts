import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  ApiKeyRepository,
  AuthenticationLive,
  type AuthRequestsConfig,
  AuthRequestsLive,
  EventBus,
  EventRepository,
  generateApiKey,
  Sessions,
  StoreLive
} from "@gatehouse-edge/core"
import type { Scope } from "@gatehouse-edge/core/domain"
import type * as grpc from "@grpc/grpc-js"
import { Effect, Layer } from "effect"
import { type AuthServiceClient, makeAuthServiceClient } from "../../src/client.js"
import { GrpcServer, GrpcServerAddress, type GrpcServerOptions } from "../../src/index.js"

/** A key stored (as the server stores keys), one stored then revoked, and one whose expiry has passed (before the TestClock epoch, so under any clock). */
export const keys = {
  valid: generateApiKey(),
  revoked: generateApiKey(),
  expired: generateApiKey(),
  /** A key that may read auth requests, and nothing else. */
  reader: generateApiKey(),
  /** The SSH gate's key: may create and read auth requests, never decide them. */
  creator: generateApiKey(),
  /** A key that may do anything with auth requests (and nothing else). */
  writer: generateApiKey()
}

const storedKey = (
  name: string,
  key: { prefix: string; sha256: string },
  revoked: boolean,
  expiresAt: string | null = null,
  scopes: ReadonlyArray<Scope> = ["admin"]
) => ({
  id: `id-${name}`,
  name,
  prefix: key.prefix,
  sha256: key.sha256,
  roles: ["admin"],
  scopes,
  created_at: "2026-01-01T00:00:00.000Z",
  expires_at: expiresAt,
  last_used_at: null,
  revoked_at: revoked ? "2026-01-02T00:00:00.000Z" : null
})

/**
 * The gRPC server over the real core: auth requests on an in-memory store, the event bus, API keys in the store
 * checked by the real authentication; on 127.0.0.1 with a free port and a unix socket in a temp dir.
 */
export const grpcServerLayer = (options: Partial<GrpcServerOptions> = {}, config: Partial<AuthRequestsConfig> = {}) => {
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-grpc-"))
  const storedKeys = Layer.effectDiscard(
    Effect.flatMap(ApiKeyRepository, (repository) =>
      Effect.all([
        repository.insert(storedKey("valid", keys.valid, false)),
        repository.insert(storedKey("revoked", keys.revoked, true)),
        repository.insert(storedKey("expired", keys.expired, false, "1969-12-31T00:00:00.000Z")),
        repository.insert(storedKey("reader", keys.reader, false, null, ["auth_requests:read"])),
        repository.insert(storedKey("creator", keys.creator, false, null, ["auth_requests:create"])),
        repository.insert(storedKey("writer", keys.writer, false, null, ["auth_requests:write"]))
      ])
    ).pipe(Effect.orDie)
  )
  const core = AuthRequestsLive.layer({ ...AuthRequestsLive.defaultConfig, ...config }).pipe(
    Layer.provideMerge(EventBus.layer({ historyCap: 10_000 })),
    Layer.provideMerge(Layer.merge(AuthenticationLive.layer, storedKeys)),
    Layer.provideMerge(Sessions.layerTest),
    Layer.provideMerge(Layer.merge(EventRepository.layer, ApiKeyRepository.layer)),
    Layer.provideMerge(StoreLive.layerMemory)
  )
  const cleanup = Layer.effectDiscard(
    Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(socketDir, { recursive: true, force: true })))
  )
  return GrpcServer.layer({
    host: "127.0.0.1",
    port: 0,
    unixSocket: path.join(socketDir, "gatehouse.sock"),
    ...options
  }).pipe(Layer.provideMerge(core), Layer.provideMerge(cleanup))
}

/** A client of the running server: with the valid key unless told otherwise. */
export const clientOf = (options: { readonly apiKey?: string | undefined; readonly unix?: boolean } = {}) =>
  Effect.gen(function* () {
    const address = yield* GrpcServerAddress
    const client = makeAuthServiceClient({
      address: options.unix === true ? `unix:${address.unixSocket}` : `127.0.0.1:${address.port}`,
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      insecure: true
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => client.close()))
    return client
  })

/** A unary call's outcome: the response, or the status code and message. */
export type Outcome<A> = { readonly ok: A } | { readonly code: grpc.status; readonly details: string }

/** Calls a unary RPC and never fails: the status is part of the answer, for assertions. */
export const call = <A>(client: AuthServiceClient, method: keyof AuthServiceClient, request: object) =>
  Effect.callback<Outcome<A>>((resume) => {
    ;(client[method] as unknown as (r: object, cb: (e: grpc.ServiceError | null, v: A) => void) => void).call(
      client,
      request,
      (error, value) =>
        resume(Effect.succeed(error === null ? { ok: value } : { code: error.code, details: error.details }))
    )
  })

/** The response of a call that must succeed. */
export const ok = <A>(outcome: Outcome<A>): A => {
  if ("ok" in outcome) return outcome.ok
  throw new Error(`expected OK, got ${outcome.code}: ${outcome.details}`)
}
