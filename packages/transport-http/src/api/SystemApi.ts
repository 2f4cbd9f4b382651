import { VersionInfo } from "@gatehouse/core/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { NoQuery, YamlText } from "./Parameters.js"

/** Public endpoints: version and the API description. */
export class SystemApi extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("version", "/version", { query: NoQuery, success: VersionInfo }).annotateMerge(
      OpenApi.annotations({ summary: "Server version" })
    ),
    HttpApiEndpoint.get("openapiJson", "/openapi.json", {
      query: NoQuery,
      success: Schema.Record(Schema.String, Schema.Unknown)
    }).annotateMerge(OpenApi.annotations({ summary: "This API description (OpenAPI 3.1, JSON)" })),
    HttpApiEndpoint.get("openapiYaml", "/openapi.yaml", { query: NoQuery, success: YamlText }).annotateMerge(
      OpenApi.annotations({ summary: "This API description (OpenAPI 3.1, YAML)" })
    )
  )
  .prefix("/api/v1") {}
