import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { HealthMap } from "../domain/index.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

/** Health of every route. */
export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("get", "/health", { success: HealthMap })
      .annotateMerge(requires("health:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Health of every route",
          description:
            "A HealthMap `alias → {status, latency_ms, uptime_s, last_check}`. WebSocket on the same path: the map, " +
            "then at most once per second and only when a status changes."
        })
      )
  )
  .middleware(Authorization) {}
