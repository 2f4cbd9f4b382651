/**
 * @gatehouse/transport-grpc — the gRPC transport of Gatehouse: the `gatehouse.v1` protos (source of truth),
 * their generated TypeScript types, and the loader grpc-js uses. The AuthService server binding arrives with
 * the auth-request feature.
 */
export type { ProtoGrpcType } from "./gen/auth.js"
export type { AuthRequest } from "./gen/gatehouse/v1/AuthRequest.js"
export type { AuthServiceClient, AuthServiceHandlers } from "./gen/gatehouse/v1/AuthService.js"
export type { Node } from "./gen/gatehouse/v1/Node.js"
export type { User } from "./gen/gatehouse/v1/User.js"
export { loadGatehouseProto, protoDir, protoFiles } from "./ProtoLoader.js"
