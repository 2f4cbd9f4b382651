import * as Schema from "effect/Schema"
import { IdlewatcherProxmoxNodeConfig } from "./HypervisorNodeConfig.js"

/** The Docker container an idle-watched route wakes and stops. */
export const IdlewatcherDockerConfig = Schema.Struct({
  docker_host: Schema.optionalKey(Schema.String),
  container_id: Schema.optionalKey(Schema.String),
  container_name: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "IdlewatcherDockerConfig" })
export type IdlewatcherDockerConfig = typeof IdlewatcherDockerConfig.Type

/** Stop method used when a route has been idle for `idle_timeout_ms`. */
export const StopMethod = Schema.Literals(["pause", "stop", "kill"])
export type StopMethod = typeof StopMethod.Type

/** Idle watcher settings of a route, normalized (durations in milliseconds). */
export const Idlewatcher = Schema.Struct({
  idle_timeout_ms: Schema.Int,
  wake_timeout_ms: Schema.Int,
  stop_timeout_ms: Schema.Int,
  stop_method: StopMethod,
  depends_on: Schema.Array(Schema.String),
  docker: Schema.optionalKey(IdlewatcherDockerConfig),
  proxmox: Schema.optionalKey(IdlewatcherProxmoxNodeConfig)
}).annotate({ identifier: "Idlewatcher" })
export type Idlewatcher = typeof Idlewatcher.Type
