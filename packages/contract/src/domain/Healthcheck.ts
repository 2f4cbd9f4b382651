import * as Schema from "effect/Schema"

/** Health check settings of a route, normalized (durations in milliseconds). */
export const Healthcheck = Schema.Struct({
  disable: Schema.Boolean,
  path: Schema.String,
  use_get: Schema.Boolean,
  interval_ms: Schema.Int,
  timeout_ms: Schema.Int,
  retries: Schema.Int
}).annotate({ identifier: "Healthcheck" })
export type Healthcheck = typeof Healthcheck.Type

/** Defaults applied when a route does not set them. */
export const HealthcheckDefaults: Healthcheck = {
  disable: false,
  path: "/",
  use_get: false,
  interval_ms: 5_000,
  timeout_ms: 5_000,
  retries: 3
}
