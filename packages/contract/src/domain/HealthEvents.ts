import * as Schema from "effect/Schema"
import { defineEvent } from "./EventKind.js"
import { HealthStatusString } from "./Health.js"

const HealthTransition = Schema.Struct({
  alias: Schema.String,
  status: HealthStatusString,
  previous: HealthStatusString,
  latency_ms: Schema.Finite,
  error: Schema.optionalKey(Schema.String)
})

/** `health/down`: a route became unhealthy (or its check errs). */
export const HealthDownEvent = defineEvent("health", "down", {
  level: "warn",
  identifier: "HealthDownEvent",
  description: "a route went from healthy (or starting) to unhealthy or error",
  data: HealthTransition
})

/** `health/up`: a route that was down passes its check again. */
export const HealthUpEvent = defineEvent("health", "up", {
  level: "info",
  identifier: "HealthUpEvent",
  description: "a route that was down is healthy again",
  data: HealthTransition
})

/** Constructors of the `health` events. */
export const HealthEvents = {
  down: HealthDownEvent.make,
  up: HealthUpEvent.make
} as const
