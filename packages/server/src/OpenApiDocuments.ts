import { openApiDocument } from "@gatehouse-edge/transport-http"
import { stringify } from "yaml"

/** The OpenAPI document in both published forms, rendered the same way for `/openapi.*`, the CLI and the checked-in files. */
export interface OpenApiDocuments {
  readonly json: Record<string, unknown>
  readonly jsonText: string
  readonly yamlText: string
}

/** Renders the OpenAPI document of the HTTP contract. */
export const renderOpenApi = (): OpenApiDocuments => {
  const json = openApiDocument()
  return { json, jsonText: `${JSON.stringify(json, null, 2)}\n`, yamlText: stringify(json, { lineWidth: 0 }) }
}
