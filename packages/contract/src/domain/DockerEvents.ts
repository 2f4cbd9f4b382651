import * as Schema from "effect/Schema"
import { defineEvent } from "./EventKind.js"

const ContainerEventData = Schema.Struct({
  host: Schema.String,
  id: Schema.String,
  name: Schema.String,
  /** For `health_status`: `healthy`, `unhealthy` or `starting`; for `die`: the exit code. */
  detail: Schema.optionalKey(Schema.String)
})

const containerEvent = <const A extends string>(action: A, level: "info" | "warn", description: string) =>
  defineEvent("docker", action, {
    level,
    identifier: `Docker${action.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())}Event`,
    description,
    data: ContainerEventData
  })

/** `docker/start`: a container started (seen in its engine's event stream). */
export const DockerStartEvent = containerEvent("start", "info", "a container started")
/** `docker/stop`: a container was stopped. */
export const DockerStopEvent = containerEvent("stop", "info", "a container was stopped")
/** `docker/die`: a container's main process exited (`detail`: the exit code). */
export const DockerDieEvent = containerEvent("die", "warn", "a container's main process exited")
/** `docker/health_status`: a container's HEALTHCHECK changed its verdict (`detail`: the new status). */
export const DockerHealthStatusEvent = containerEvent(
  "health_status",
  "info",
  "a container's HEALTHCHECK reported a new status"
)

/** Constructors of the `docker` events, by the engine's action name. */
export const DockerEvents = {
  start: DockerStartEvent.make,
  stop: DockerStopEvent.make,
  die: DockerDieEvent.make,
  health_status: DockerHealthStatusEvent.make
} as const
