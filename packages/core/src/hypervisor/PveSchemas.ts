import * as Schema from "effect/Schema"

// What the Proxmox VE API answers (reference/pve-api.md), as far as Gatehouse reads it. Perl encodes some numbers
// as strings (`loadavg`, `cpuinfo.mhz`, config values), so every number accepts either form. Unknown fields are
// ignored: newer PVE versions add fields.

/** A number Proxmox may send as a JSON number or as a numeric string. */
export const PveNumber = Schema.Union([Schema.Finite, Schema.NumberFromString.check(Schema.isFinite())])

const optionalNumber = Schema.optionalKey(PveNumber)

/** `GET /nodes/{node}/status`. */
export const PveNodeStatus = Schema.Struct({
  uptime: PveNumber,
  loadavg: Schema.Tuple([PveNumber, PveNumber, PveNumber]),
  cpu: PveNumber,
  kversion: Schema.optionalKey(Schema.String),
  "current-kernel": Schema.optionalKey(
    Schema.Struct({ release: Schema.String, version: Schema.optionalKey(Schema.String) })
  ),
  cpuinfo: Schema.Struct({ model: Schema.String, cpus: PveNumber }),
  memory: Schema.Struct({ total: PveNumber, used: PveNumber }),
  rootfs: Schema.Struct({ total: PveNumber, used: PveNumber }),
  pveversion: Schema.String
})
export type PveNodeStatus = typeof PveNodeStatus.Type

/** One entry of `GET /cluster/resources` (nodes, guests, storage, …; only the fields Gatehouse reads). */
export const PveClusterResource = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  node: Schema.optionalKey(Schema.String),
  status: Schema.optionalKey(Schema.String),
  vmid: optionalNumber,
  name: Schema.optionalKey(Schema.String),
  uptime: optionalNumber,
  cpu: optionalNumber,
  maxcpu: optionalNumber,
  mem: optionalNumber,
  maxmem: optionalNumber,
  netin: optionalNumber,
  netout: optionalNumber,
  diskread: optionalNumber,
  diskwrite: optionalNumber,
  template: optionalNumber,
  tags: Schema.optionalKey(Schema.String)
})
export type PveClusterResource = typeof PveClusterResource.Type

/** `GET /cluster/resources`. */
export const PveClusterResources = Schema.Array(PveClusterResource)

/** `GET /nodes/{node}/lxc/{vmid}/status/current` (only the status is read: stats come from the cache). */
export const PveLxcStatus = Schema.Struct({ status: Schema.String, vmid: optionalNumber })

/** `POST …/status/{action}` answers the UPID of the task it started. */
export const PveUpid = Schema.String

/** `GET /nodes/{node}/tasks/{upid}/status`. */
export const PveTaskStatus = Schema.Struct({
  status: Schema.String,
  exitstatus: Schema.optionalKey(Schema.String)
})

/** `GET /nodes/{node}/lxc/{vmid}/interfaces` (PVE ≥ 8.1): `null` when the container is not running. */
export const PveInterfaces = Schema.NullOr(
  Schema.Array(
    Schema.Struct({
      name: Schema.String,
      inet: Schema.optionalKey(Schema.String),
      inet6: Schema.optionalKey(Schema.String),
      "ip-addresses": Schema.optionalKey(
        Schema.Array(
          Schema.Struct({ "ip-address": Schema.String, "ip-address-type": Schema.optionalKey(Schema.String) })
        )
      )
    })
  )
)
export type PveInterfaces = typeof PveInterfaces.Type

/** `GET /access/permissions`: path → privilege → propagate flag. */
export const PvePermissions = Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Unknown))
export type PvePermissions = typeof PvePermissions.Type

/** `GET /version`. */
export const PveVersion = Schema.Struct({ version: Schema.String, release: Schema.optionalKey(Schema.String) })
