import * as Schema from "effect/Schema"

/**
 * A container's resource use (SPEC §6), the same shape from Docker and Podman: CPU % from the cpu/precpu deltas,
 * memory without page cache, network and block I/O totals in bytes.
 */
export const ContainerStats = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  host: Schema.String,
  cpu_pct: Schema.Finite,
  mem_used: Schema.Int,
  mem_limit: Schema.Int,
  mem_pct: Schema.Finite,
  net_rx: Schema.Int,
  net_tx: Schema.Int,
  block_read: Schema.Int,
  block_write: Schema.Int,
  pids: Schema.Int,
  timestamp: Schema.String
}).annotate({ identifier: "ContainerStats" })
export type ContainerStats = typeof ContainerStats.Type

/** One line of a container's output: which stream, when the engine saw it (RFC 3339, when asked), the text. */
export const ContainerLogLine = Schema.Struct({
  stream: Schema.Literals(["stdout", "stderr"]),
  timestamp: Schema.optionalKey(Schema.String),
  line: Schema.String
}).annotate({ identifier: "ContainerLogLine" })
export type ContainerLogLine = typeof ContainerLogLine.Type

/** A container of a configured engine (`GET /docker/containers`), with the routes its labels define. */
export const ContainerSummary = Schema.Struct({
  host: Schema.String,
  id: Schema.String,
  name: Schema.String,
  image: Schema.String,
  /** `running`, `exited`, `paused`, `created`, ... as the engine says. */
  state: Schema.String,
  /** The engine's human summary, e.g. `Up 5 minutes (healthy)`. */
  status: Schema.String,
  labels: Schema.Record(Schema.String, Schema.String),
  /** Aliases of the routes defined by its labels. */
  routes: Schema.Array(Schema.String)
}).annotate({ identifier: "ContainerSummary" })
export type ContainerSummary = typeof ContainerSummary.Type

/** The three container actions of `POST /docker/containers/{id}/{action}`. */
export const ContainerAction = Schema.Literals(["start", "stop", "restart"]).annotate({ identifier: "ContainerAction" })
export type ContainerAction = typeof ContainerAction.Type

/** The answer of a container action: what happened and the state after it. */
export const ContainerActionResult = Schema.Struct({ message: Schema.String, state: Schema.String }).annotate({
  identifier: "ContainerActionResult"
})
export type ContainerActionResult = typeof ContainerActionResult.Type
