/**
 * `@gatehouse-edge/transport-grpc/client` — a typed grpc-js client for `gatehouse.v1.AuthService`.
 * Any gRPC client in any language can use the protos in `proto/` instead.
 */
import * as grpc from "@grpc/grpc-js"
import type { AuthServiceClient } from "./gen/gatehouse/v1/AuthService.js"
import { loadGatehouseProto } from "./ProtoLoader.js"

export type { AuthServiceClient } from "./gen/gatehouse/v1/AuthService.js"

/**
 * Creates an AuthService client. With an API key, every call carries `authorization: Bearer <key>`.
 * `insecure` uses a plaintext channel (meant for loopback); otherwise TLS, with `rootCerts` if given.
 */
export const makeAuthServiceClient = (options: {
  readonly address: string
  readonly apiKey?: string
  readonly insecure?: boolean
  readonly rootCerts?: Buffer
}): AuthServiceClient => {
  const credentials = options.insecure
    ? grpc.credentials.createInsecure()
    : grpc.credentials.createSsl(options.rootCerts)
  const apiKey = options.apiKey
  // An interceptor rather than call credentials: grpc-js refuses to compose call credentials with an insecure
  // channel, and loopback deployments use one.
  const bearer: grpc.Interceptor = (callOptions, next) =>
    new grpc.InterceptingCall(next(callOptions), {
      start: (metadata, listener, start) => {
        metadata.set("authorization", `Bearer ${apiKey}`)
        start(metadata, listener)
      }
    })
  const proto = loadGatehouseProto()
  return new proto.gatehouse.v1.AuthService(options.address, credentials, {
    interceptors: apiKey === undefined ? [] : [bearer]
  })
}

export { AuthServiceCallError } from "./AuthServiceCallError.js"
export {
  type AuthRequestPageResponse,
  type AuthServiceClientOptions,
  type AuthServiceEffectClient,
  authServiceEffectClient,
  defaultWatchSilenceMs
} from "./AuthServiceClient.js"
export { type AuthServicePromiseClient, authServicePromiseClient } from "./AuthServicePromiseClient.js"
