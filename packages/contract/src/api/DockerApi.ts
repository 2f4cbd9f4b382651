import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import {
  ContainerAction,
  ContainerActionResult,
  ContainerIdAmbiguous,
  ContainerLogLine,
  ContainerNotFound,
  ContainerNotRunning,
  ContainerPaused,
  ContainerStats,
  ContainerSummary,
  DockerFailed,
  DockerHostUnreachable,
  DockerNotConfigured,
  EngineTime,
  InvalidArgument,
  toWireError
} from "../domain/index.js"
import { BooleanParam, ContainerParam, Limit } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

const engineErrors = [toWireError(DockerNotConfigured), toWireError(DockerHostUnreachable), toWireError(DockerFailed)]
const lookupErrors = [
  ...engineErrors,
  toWireError(InvalidArgument),
  toWireError(ContainerNotFound),
  toWireError(ContainerIdAmbiguous)
]

/** Query of `GET /docker/logs/{id}`. */
export const LogsQuery = {
  limit: Schema.optionalKey(Limit),
  stdout: Schema.optionalKey(BooleanParam),
  stderr: Schema.optionalKey(BooleanParam),
  since: Schema.optionalKey(EngineTime),
  until: Schema.optionalKey(EngineTime),
  timestamps: Schema.optionalKey(BooleanParam)
}

/** Docker (and Podman) engines (SPEC §6). */
export class DockerApi extends HttpApiGroup.make("docker")
  .add(
    HttpApiEndpoint.get("containers", "/docker/containers", {
      success: Schema.Array(ContainerSummary),
      error: engineErrors
    })
      .annotateMerge(requires("docker:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "List containers",
          description:
            "Every container of every configured engine, running or not (an engine that is down is left out; 503 " +
            "when none answers). WebSocket on the same path: the list, then again when it changed (checked every 5 s)."
        })
      ),
    HttpApiEndpoint.get("stats", "/docker/stats/:id", {
      params: { id: ContainerParam },
      success: ContainerStats,
      error: [...lookupErrors, toWireError(ContainerNotRunning)]
    })
      .annotateMerge(requires("docker:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Container stats",
          description:
            "One sample, normalized across Docker and Podman (CPU % from the deltas, memory without page cache); " +
            "409 for a container that is not running. WebSocket on the same path: a sample at the engine's cadence, " +
            "until the container stops; one engine stream for all watchers."
        })
      ),
    HttpApiEndpoint.get("logs", "/docker/logs/:id", {
      params: { id: ContainerParam },
      query: LogsQuery,
      success: Schema.Array(ContainerLogLine),
      error: lookupErrors
    })
      .annotateMerge(requires("docker:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Container logs",
          description:
            "The last `limit` lines (1–1000, default 100) of stdout and stderr, as `{stream, timestamp?, line}`. " +
            "WebSocket on the same path: the same lines, then each new one until the container stops."
        })
      ),
    HttpApiEndpoint.post("act", "/docker/containers/:id/:action", {
      params: { id: ContainerParam, action: ContainerAction },
      success: ContainerActionResult,
      error: [...lookupErrors, toWireError(ContainerPaused)]
    })
      .annotateMerge(requires("docker:write"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Start, stop or restart a container",
          description:
            "Idempotent: starting a running container answers `container already running`. Stop is graceful (10 s). " +
            "Starting a paused container is a 409 (unpause it first); stop and restart take it as it is."
        })
      )
  )
  .middleware(Authorization) {}
