import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import {
  InvalidYaml,
  RouteEntry,
  RouteNotFound,
  RouteValidationResult,
  toWireError,
  UpgradeRequired,
  ValidationFailed,
  ValidationQueueFull,
  ValidationTimedOut,
  ValidationWorkerFailed
} from "../domain/index.js"
import { AliasParam, YamlBody } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

/** Route validation and the active route table. */
export class RoutesApi extends HttpApiGroup.make("routes")
  .add(
    HttpApiEndpoint.post("validate", "/route/validate", {
      payload: YamlBody,
      success: RouteValidationResult,
      error: [
        toWireError(InvalidYaml),
        toWireError(ValidationFailed),
        toWireError(ValidationQueueFull),
        toWireError(ValidationTimedOut),
        toWireError(ValidationWorkerFailed)
      ]
    })
      .annotateMerge(requires("routes:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Validate routes",
          description:
            "Body: YAML, one route (with `alias`) or a map `alias → route`. 200 with every route normalized; " +
            "422 with every problem (path, message, line, column); 400 for YAML syntax errors and for nesting " +
            "deeper than 64 levels. Large documents are validated on worker threads: 429 when too many wait."
        })
      ),
    HttpApiEndpoint.get("validateStream", "/route/validate", {
      error: toWireError(UpgradeRequired)
    })
      .annotateMerge(requires("routes:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Validate routes (WebSocket)",
          description:
            "WebSocket only. Each client text message is a YAML document; the server answers one frame per route " +
            '`{"alias","valid","route"?,"errors"?}` then `{"done":true,"valid":n,"invalid":m}`. Without the upgrade: 426.'
        })
      ),
    HttpApiEndpoint.get("list", "/route/list", {
      success: Schema.Array(RouteEntry)
    })
      .annotateMerge(requires("routes:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "List routes",
          description:
            "All routes with provider, excluded flag and health. WebSocket on the same path: the list, then again on every change."
        })
      ),
    HttpApiEndpoint.get("get", "/route/:alias", {
      params: { alias: AliasParam },
      success: RouteEntry,
      error: toWireError(RouteNotFound)
    })
      .annotateMerge(requires("routes:read"))
      .annotateMerge(OpenApi.annotations({ summary: "Get one route" }))
  )
  .middleware(Authorization) {}
