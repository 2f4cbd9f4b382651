import {
  type AnyStreamEndpoint,
  GatehouseApi,
  requiredScopeOf,
  type ScopeRequirement,
  StreamEndpoints,
  StreamErrorsOfEveryStream
} from "@gatehouse-edge/contract/api"
import { type ApiErrorClass, closeCodeOf } from "@gatehouse-edge/core/domain"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"

type JsonObject = Record<string, unknown>

// OpenApi.fromApi renders query parameters as strings with a numeric pattern and drops range checks (they are
// enforced at runtime); the document states them properly so generated clients and docs show the real contract.
const queryParameterSchemas: Record<string, JsonObject> = {
  limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
  offset: { type: "integer", minimum: 0, maximum: 1_000_000_000, default: 0 },
  category: { type: "string", pattern: "^[a-z0-9_]{1,64}$" },
  filename: { type: "string", minLength: 1, maxLength: 255 },
  vmid: { type: "integer", minimum: 0, description: "Guest id; 0 or absent: the node itself" }
}

// A schema's JSON Schema with its definitions moved into `components.schemas` (kept when already there).
const componentSchema = (schema: Schema.Top, components: Record<string, unknown>): unknown => {
  const document = Schema.toJsonSchemaDocument(schema)
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite)
    if (typeof value !== "object" || value === null) return value
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) =>
        key === "$ref" && typeof inner === "string"
          ? [key, inner.replace(/^#\/\$defs\//, "#/components/schemas/")]
          : [key, rewrite(inner)]
      )
    )
  }
  for (const [name, definition] of Object.entries(document.definitions ?? {})) {
    if (!(name in components)) components[name] = rewrite(definition)
  }
  return rewrite(document.schema)
}

const closes = (errors: ReadonlyArray<ApiErrorClass>) =>
  errors.map((error) => ({
    code: closeCodeOf(error.apiError.code),
    error: error.apiError.code,
    reason: error.apiError.tag
  }))

// What the stream table declares about an endpoint, as an OpenAPI extension on the GET it upgrades.
const streamExtension = (endpoint: AnyStreamEndpoint, components: Record<string, unknown>): JsonObject => ({
  summary: endpoint.summary,
  frame: componentSchema(endpoint.frame, components),
  frame_encoding: endpoint.encoding,
  ...(endpoint.input === undefined ? {} : { input: componentSchema(endpoint.input, components) }),
  upgrade_only: endpoint.upgradeOnly,
  ends: endpoint.ends,
  closes: [
    { code: 1000, reason: "the stream ended normally" },
    ...closes([...endpoint.errors, ...StreamErrorsOfEveryStream])
  ]
})

// `<group>.<endpoint>` (the operation id) → the scope the endpoint declares.
const declaredScopes = (): ReadonlyMap<string, ScopeRequirement> => {
  const scopes = new Map<string, ScopeRequirement>()
  for (const group of Object.values(GatehouseApi.groups)) {
    for (const [name, endpoint] of Object.entries(group.endpoints)) {
      const scope = requiredScopeOf(endpoint.annotations)
      if (scope !== undefined) scopes.set(`${group.identifier}.${name}`, scope)
    }
  }
  return scopes
}

// OpenAPI 3.1 lets a requirement of any scheme list "role names required for the execution": the scope.
const withScope = (operation: JsonObject, scope: ScopeRequirement | undefined) => {
  if (scope === undefined || !Array.isArray(operation.security)) return
  operation["x-required-scope"] = scope
  if (scope === "authenticated") return
  operation.security = (operation.security as Array<Record<string, Array<string>>>).map((requirement) =>
    Object.fromEntries(Object.keys(requirement).map((scheme) => [scheme, [scope]]))
  )
}

/**
 * The OpenAPI 3.1 description of {@link GatehouseApi}, as served at `/api/v1/openapi.json`. The WebSocket side of
 * each stream endpoint comes from the stream table: `x-websocket: true` on the GET it upgrades, and
 * `x-websocket-stream` with the frame schema, the input schema of two-way streams, when the stream ends and the
 * close codes it can end with. Each protected operation names the scope it needs: `x-required-scope`, and as the
 * scopes of its security requirements (`bearer`: an API key, `session`: the session cookie).
 */
export const openApiDocument = (): JsonObject => {
  const spec = OpenApi.fromApi(GatehouseApi) as unknown as {
    paths: Record<string, Record<string, JsonObject>>
    components: { schemas: Record<string, unknown> }
  }
  const streams = new Map<string, AnyStreamEndpoint>(
    Object.values(StreamEndpoints).map((endpoint) => [`${endpoint.group}.${endpoint.endpoint}`, endpoint])
  )
  const scopes = declaredScopes()
  for (const operations of Object.values(spec.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      withScope(operation, scopes.get(String(operation.operationId)))
      const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string; schema: JsonObject }>
      for (const parameter of parameters) {
        const schema = parameter.in === "query" ? queryParameterSchemas[parameter.name] : undefined
        if (schema !== undefined) parameter.schema = schema
      }
      const stream = method === "get" ? streams.get(String(operation.operationId)) : undefined
      if (stream !== undefined) {
        operation["x-websocket"] = true
        operation["x-websocket-stream"] = streamExtension(stream, spec.components.schemas)
      }
    }
  }
  return spec as unknown as JsonObject
}
