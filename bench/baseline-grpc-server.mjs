/**
 * The baseline of bench/auth-requests.ts: a bare grpc-js server for the same `gatehouse.v1.AuthService` (the same
 * protos, loader and message sizes) whose CreateAuthRequest and AuthApprove answer at once with fixed messages:
 * the cost of gRPC itself, with none of Gatehouse's work. `node bench/baseline-grpc-server.mjs <port>`; prints
 * "ready" once listening on 127.0.0.1:<port>.
 */

import { loadGatehouseProto } from "@gatehouse-edge/transport-grpc"
import * as grpc from "@grpc/grpc-js"

const [port] = process.argv.slice(2)
const now = { seconds: String(Math.floor(Date.now() / 1000)), nanos: 0 }
const request = {
  authId: "ghreq_AAAAAAAAAAAAAAAAAAAAAAAA",
  kind: "AUTH_REQUEST_KIND_SSH_CHECK",
  state: "AUTH_REQUEST_STATE_PENDING",
  createdAt: now,
  expiresAt: now,
  sshCheck: { src: "127.0.0.1", dst: "bench", localUser: "root" }
}
const server = new grpc.Server()
server.addService(loadGatehouseProto().gatehouse.v1.AuthService.service, {
  CreateAuthRequest: (_call, callback) => callback(null, { authRequest: request }),
  AuthApprove: (_call, callback) => callback(null, {})
})
server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error) => {
  if (error !== null) throw error
  process.stdout.write("ready\n")
})
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)))
