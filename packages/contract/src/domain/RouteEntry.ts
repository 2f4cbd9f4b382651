import * as Schema from "effect/Schema"
import { HealthInfo } from "./Health.js"
import { Route } from "./Route.js"

/** A route as listed by the server: the route plus where it came from, whether it is excluded, and its health. */
export const RouteEntry = Schema.Struct({
  ...Route.fields,
  provider: Schema.String,
  excluded: Schema.Boolean,
  health: HealthInfo
}).annotate({ identifier: "RouteEntry" })
export type RouteEntry = typeof RouteEntry.Type
