import { createRequire } from "node:module"
import * as path from "node:path"
import { parseScope, type Scope } from "@gatehouse-edge/core/domain"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import type { ProtoGrpcType } from "./gen/auth.js"

/**
 * The directory holding `gatehouse/v1/*.proto`: the source of truth of the gRPC contract. Found from the package's
 * own `package.json` rather than from this module's URL, because the `gatehouse` program bundles this module into
 * its own chunks, which are not next to `proto/`.
 */
export const protoDir = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@gatehouse-edge/transport-grpc/package.json")),
  "proto"
)

/** The proto files of package `gatehouse.v1`, relative to {@link protoDir}. */
export const protoFiles = ["gatehouse/v1/auth.proto", "gatehouse/v1/node.proto", "gatehouse/v1/options.proto"] as const

// The same options the generated types were produced with (see the `codegen` script), so values match them.
const loaderOptions: protoLoader.Options = {
  includeDirs: [protoDir],
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true
}

/** The parsed `gatehouse.v1` protos (the required scopes are read from them). */
export const gatehousePackageDefinition = (): protoLoader.PackageDefinition =>
  protoLoader.loadSync([...protoFiles], loaderOptions)

/** Loads `gatehouse.v1` for grpc-js: service definitions and message types, typed by the generated code. */
export const loadGatehouseProto = (): ProtoGrpcType =>
  grpc.loadPackageDefinition(gatehousePackageDefinition()) as unknown as ProtoGrpcType

/** The option of a method that names the scope it needs (`options.proto`). */
const REQUIRED_SCOPE_OPTION = "(gatehouse.v1.required_scope)"

/**
 * The scope each `AuthService` method declares in the protos (`option (gatehouse.v1.required_scope)`): the contract
 * says what each RPC needs, and the server checks it. A method without one (or with an unknown scope) is an error
 * at start, never an open door.
 */
export const requiredScopes = (): Readonly<Record<string, Scope>> => {
  const service = gatehousePackageDefinition()["gatehouse.v1.AuthService"] as unknown as Record<
    string,
    { readonly options: Readonly<Record<string, unknown>> }
  >
  return Object.fromEntries(
    Object.entries(service).map(([method, definition]) => {
      const declared = definition.options[REQUIRED_SCOPE_OPTION]
      const parsed = typeof declared === "string" ? parseScope(declared) : undefined
      if (parsed === undefined || "error" in parsed) {
        throw new Error(`gatehouse.v1.AuthService/${method} declares no valid required_scope (${String(declared)})`)
      }
      return [method, parsed.scope]
    })
  )
}
