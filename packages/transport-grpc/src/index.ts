/**
 * @gatehouse-edge/transport-grpc — the gRPC transport of Gatehouse: the `gatehouse.v1` protos (source of truth),
 * their generated TypeScript types, and the loader grpc-js uses. The AuthService server binding arrives with
 * the auth-request feature.
 */
export type { ProtoGrpcType } from "./gen/auth.js"
export type * from "./Messages.js"
export { loadGatehouseProto, protoDir, protoFiles } from "./ProtoLoader.js"
