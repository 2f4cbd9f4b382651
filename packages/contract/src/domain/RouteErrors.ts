import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"

/** No route with this alias (404). */
export class RouteNotFound extends ApiError<RouteNotFound>()("RouteNotFound", {
  code: "not_found",
  fields: { alias: Schema.String },
  message: (e) => `route "${e.alias}" not found`
}) {}
