import { fileURLToPath } from "node:url"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import type { ProtoGrpcType } from "./gen/auth.js"

/** The directory holding `gatehouse/v1/*.proto`: the source of truth of the gRPC contract. */
export const protoDir = fileURLToPath(new URL("../proto", import.meta.url))

/** The proto files of package `gatehouse.v1`, relative to {@link protoDir}. */
export const protoFiles = ["gatehouse/v1/auth.proto", "gatehouse/v1/node.proto"] as const

// The same options the generated types were produced with (see the `codegen` script), so values match them.
const loaderOptions: protoLoader.Options = {
  includeDirs: [protoDir],
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true
}

/** The parsed `gatehouse.v1` protos (what server reflection describes). */
export const gatehousePackageDefinition = (): protoLoader.PackageDefinition =>
  protoLoader.loadSync([...protoFiles], loaderOptions)

/** Loads `gatehouse.v1` for grpc-js: service definitions and message types, typed by the generated code. */
export const loadGatehouseProto = (): ProtoGrpcType =>
  grpc.loadPackageDefinition(gatehousePackageDefinition()) as unknown as ProtoGrpcType
