import * as grpc from "@grpc/grpc-js"
import { Effect } from "effect"
import type { AuthServiceHandlers } from "../../src/gen/gatehouse/v1/AuthService.js"
import { loadGatehouseProto } from "../../src/ProtoLoader.js"

/**
 * A real grpc-js server on loopback serving the AuthService with the handlers a test gives (the others answer
 * UNIMPLEMENTED): a server that misbehaves as the test needs (goes silent, never answers). Stopped with the scope.
 */
export const fakeAuthServer = (handlers: Partial<AuthServiceHandlers>) =>
  Effect.gen(function* () {
    const server = new grpc.Server()
    const unimplemented = (_call: unknown, callback?: grpc.sendUnaryData<unknown>) =>
      callback?.({ code: grpc.status.UNIMPLEMENTED, details: "not in this fake" })
    const service = loadGatehouseProto().gatehouse.v1.AuthService.service
    const all = Object.fromEntries(Object.keys(service).map((name) => [name, unimplemented]))
    server.addService(service, { ...all, ...handlers } as grpc.UntypedServiceImplementation)
    const port = yield* Effect.callback<number>((resume) => {
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
        resume(error === null ? Effect.succeed(bound) : Effect.die(error))
      )
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => server.forceShutdown()))
    return { address: `127.0.0.1:${port}` }
  })

/** A pending ssh_check request as the server sends it. */
export const pendingRequest = (authId: string) => ({
  authId,
  kind: "AUTH_REQUEST_KIND_SSH_CHECK" as const,
  state: "AUTH_REQUEST_STATE_PENDING" as const,
  createdAt: { seconds: "1767225600", nanos: 0 },
  expiresAt: { seconds: "1767225900", nanos: 0 },
  sshCheck: { src: "10.0.0.1", dst: "db1", localUser: "root" }
})
