import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"

/** No Docker engine is configured (503 / UNAVAILABLE). */
export class DockerNotConfigured extends ApiError<DockerNotConfigured>()("DockerNotConfigured", {
  code: "unavailable",
  fields: {},
  message: () => "no Docker engine is configured (docker.hosts)"
}) {}

/**
 * A configured engine did not answer; the other engines keep working (503 / UNAVAILABLE). `host` is the engine's
 * configured name; `detail` the kind of failure (`connection refused`, `permission denied`, `no socket at its
 * address`, `timed out: ...`, `TLS: ...`, ...), never the driver's text with the socket path or address, which
 * only the server's log has.
 */
export class DockerHostUnreachable extends ApiError<DockerHostUnreachable>()("DockerHostUnreachable", {
  code: "unavailable",
  fields: { host: Schema.String, detail: Schema.String },
  message: (e) => `Docker host "${e.host}" is unreachable: ${e.detail}`
}) {}

/** An engine answered with an error (502 / BAD_GATEWAY); `detail` is its message. */
export class DockerFailed extends ApiError<DockerFailed>()("DockerFailed", {
  code: "bad_gateway",
  fields: { host: Schema.String, status: Schema.Int, detail: Schema.String },
  message: (e) => `Docker host "${e.host}" answered ${e.status}: ${e.detail}`
}) {}

/** No container of any engine has this id, id prefix, name, or route alias (404 / NOT_FOUND). */
export class ContainerNotFound extends ApiError<ContainerNotFound>()("ContainerNotFound", {
  code: "not_found",
  fields: { id: Schema.String },
  message: (e) => `container "${e.id}" not found`
}) {}

/** An id prefix that matches several containers (409 / FAILED_PRECONDITION), each listed. */
export class ContainerIdAmbiguous extends ApiError<ContainerIdAmbiguous>()("ContainerIdAmbiguous", {
  code: "failed_precondition",
  fields: {
    id: Schema.String,
    matches: Schema.Array(Schema.Struct({ host: Schema.String, id: Schema.String, name: Schema.String }))
  },
  message: (e) =>
    `container id "${e.id}" is ambiguous: it matches ${e.matches.map((m) => `${m.name} (${m.id.slice(0, 12)} on ${m.host})`).join(", ")}`
}) {}

/**
 * The container is not running, and what was asked needs it running: its stats (409 / FAILED_PRECONDITION). `state`
 * is the engine's (`exited`, `created`, `dead`, ...).
 */
export class ContainerNotRunning extends ApiError<ContainerNotRunning>()("ContainerNotRunning", {
  code: "failed_precondition",
  fields: { host: Schema.String, name: Schema.String, state: Schema.String },
  message: (e) => `container ${e.name} is not running (state: ${e.state})`
}) {}

/**
 * Start of a paused container (409 / FAILED_PRECONDITION): the engine refuses it, and it is not "already running"
 * either, as its processes are frozen; unpausing is a decision left to the caller.
 */
export class ContainerPaused extends ApiError<ContainerPaused>()("ContainerPaused", {
  code: "failed_precondition",
  fields: { host: Schema.String, name: Schema.String },
  message: (e) => `container ${e.name} is paused: unpause it first`
}) {}
