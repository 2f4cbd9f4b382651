import { OpenApi } from "effect/http-api"
import { GatehouseApi } from "./api/GatehouseApi.js"

type JsonObject = Record<string, unknown>

// OpenApi.fromApi renders query parameters as strings with a numeric pattern and drops range checks (they are
// enforced at runtime); the document states them properly so generated clients and docs show the real contract.
const queryParameterSchemas: Record<string, JsonObject> = {
  limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
  category: { type: "string", pattern: "^[a-z0-9_]{1,64}$" },
  filename: { type: "string", minLength: 1, maxLength: 255 }
}

const webSocketPaths = new Set(["/api/v1/route/validate", "/api/v1/route/list", "/api/v1/health", "/api/v1/events"])

/** The OpenAPI 3.1 description of {@link GatehouseApi}, as served at `/api/v1/openapi.json`. */
export const openApiDocument = (): JsonObject => {
  const spec = OpenApi.fromApi(GatehouseApi) as unknown as { paths: Record<string, Record<string, JsonObject>> }
  for (const [path, operations] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string; schema: JsonObject }>
      for (const parameter of parameters) {
        const schema = parameter.in === "query" ? queryParameterSchemas[parameter.name] : undefined
        if (schema !== undefined) parameter.schema = schema
      }
      if (method === "get" && webSocketPaths.has(path)) operation["x-websocket"] = true
    }
  }
  return spec as unknown as JsonObject
}
