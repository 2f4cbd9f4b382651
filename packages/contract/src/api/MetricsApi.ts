import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { InvalidArgument, RouteUptimePage, toWireError, UptimePeriod } from "../domain/index.js"
import { Limit, Offset } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

/** Query of `GET /metrics/uptime`. */
export const UptimeQueryParams = {
  period: Schema.optionalKey(
    UptimePeriod.annotate({ description: "Period: 5m, 15m, 1h, 1d (default) or 1mo (30 days)" })
  ),
  limit: Schema.optionalKey(Limit),
  offset: Schema.optionalKey(Offset),
  // An alias is at most 253 characters: a longer keyword could never match.
  keyword: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(253)).annotate({
      description: "Only aliases containing these characters in this order (case-insensitive), e.g. a substring"
    })
  )
}

/** Metrics of the routes (SPEC §4). */
export class MetricsApi extends HttpApiGroup.make("metrics")
  .add(
    HttpApiEndpoint.get("uptime", "/metrics/uptime", {
      query: UptimeQueryParams,
      success: RouteUptimePage,
      error: [toWireError(InvalidArgument)]
    })
      .annotateMerge(requires("health:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Uptime of every route",
          description:
            "`{total, data}`: for each route (aliases ascending, `keyword` matched case-insensitively as a substring " +
            "or as characters in order; `total` before paging, `limit` 1–1000, default 100, `offset` default 0) the " +
            "fractions of the period's samples that were up (healthy), down (unhealthy, error) and idle (napping) " +
            "— `starting` and `unknown` count for none — the average latency of the healthy ones, the current status " +
            "and at most 100 points (`period / 100` each: the worst status seen, oldest first). Health is sampled " +
            "every second and kept in the store. WebSocket on the same path: the page, then again after every sample."
        })
      )
  )
  .middleware(Authorization) {}
