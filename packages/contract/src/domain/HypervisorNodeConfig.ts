import * as Schema from "effect/Schema"

/**
 * Which Proxmox VE node / LXC container a route targets. `vmid` 0 (or omitted with `node` set) means the node
 * itself is the target. `service`/`services` name systemd units, `files` absolute log paths (journal and tail).
 */
export const HypervisorNodeConfig = Schema.Struct({
  node: Schema.String,
  vmid: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  service: Schema.optionalKey(Schema.String),
  services: Schema.optionalKey(Schema.Array(Schema.String)),
  files: Schema.optionalKey(Schema.Array(Schema.String))
}).annotate({ identifier: "HypervisorNodeConfig" })
export type HypervisorNodeConfig = typeof HypervisorNodeConfig.Type

/** The same schema, under the name the idlewatcher configuration uses. */
export const IdlewatcherProxmoxNodeConfig = HypervisorNodeConfig.annotate({
  identifier: "IdlewatcherProxmoxNodeConfig"
})
export type IdlewatcherProxmoxNodeConfig = HypervisorNodeConfig
