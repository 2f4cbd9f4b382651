/**
 * @gatehouse-edge/transport-grpc — the gRPC transport of Gatehouse: the `gatehouse.v1` protos (source of truth),
 * their generated TypeScript types, the loader grpc-js uses, and the AuthService server as a scoped layer over
 * the core's ports (`GrpcServer.layer`).
 */

export { defaultGrpcLimits, type GrpcLimits } from "./CallLimits.js"
export { defaultGrpcConnectionLimits, type GrpcConnectionLimits } from "./CappedListener.js"
export * as GrpcServer from "./GrpcServer.js"
export { GrpcServerAddress, GrpcServerError, type GrpcServerOptions } from "./GrpcServer.js"
export type { ProtoGrpcType } from "./gen/auth.js"
export type * from "./Messages.js"
export { gatehousePackageDefinition, loadGatehouseProto, protoDir, protoFiles, requiredScopes } from "./ProtoLoader.js"
