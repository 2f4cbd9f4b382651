import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { VersionInfo } from "../domain/index.js"
import { YamlText } from "./Parameters.js"

/** Public endpoints: version and the API description. */
export class SystemApi extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("version", "/version", { success: VersionInfo }).annotateMerge(
    OpenApi.annotations({ summary: "Server version" })
  ),
  HttpApiEndpoint.get("openapiJson", "/openapi.json", {
    success: Schema.Record(Schema.String, Schema.Unknown)
  }).annotateMerge(OpenApi.annotations({ summary: "This API description (OpenAPI 3.1, JSON)" })),
  HttpApiEndpoint.get("openapiYaml", "/openapi.yaml", { success: YamlText }).annotateMerge(
    OpenApi.annotations({ summary: "This API description (OpenAPI 3.1, YAML)" })
  )
) {}
