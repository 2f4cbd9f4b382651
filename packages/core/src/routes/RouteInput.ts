import {
  AccessLog,
  Homepage,
  IdlewatcherDockerConfig,
  isSafeArgumentCheck,
  Middlewares,
  Rule,
  SafeArgument,
  Scheme,
  StopMethod
} from "@gatehouse-edge/contract/domain"
import * as Schema from "effect/Schema"
import { GoDuration } from "../yaml/GoDuration.js"
import { AliasReference } from "./AliasName.js"
import { healthcheckPathProblem } from "./HealthcheckPath.js"
import { hostProblem } from "./HostName.js"
import { bindAddressProblem } from "./IpAddress.js"
import { PortInput } from "./PortSpec.js"

// The schemas of a route *as written* (YAML or labels). They check every field on its own and convert what
// can be converted locally (ports, durations, alias references); defaults and rules that involve several
// fields are applied afterwards by `normalizeRoute`, which produces the domain `Route`.

const optional = Schema.optionalKey

const nonEmpty = Schema.makeFilter((text: string) => (text.trim().length > 0 ? undefined : "must not be empty"))

const AbsolutePath = Schema.String.check(
  Schema.makeFilter((path: string) =>
    path.startsWith("/") ? undefined : `\`${path}\` is not an absolute path (it must start with \`/\`)`
  )
)

const Host = Schema.String.check(
  nonEmpty,
  Schema.makeFilter((host: string) => (host.trim() === "" ? undefined : hostProblem(host.trim())))
)

const BindAddress = Schema.String.check(Schema.makeFilter((text: string) => bindAddressProblem(text)))

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** `healthcheck` as written; `path` is one an HTTP request can carry, `interval`/`timeout` durations of at least 1s. */
export const HealthcheckInput = Schema.Struct({
  disable: optional(Schema.Boolean),
  path: optional(Schema.String.check(Schema.makeFilter(healthcheckPathProblem))),
  use_get: optional(Schema.Boolean),
  interval: optional(GoDuration({ minimum: 1_000 })),
  timeout: optional(GoDuration({ minimum: 1_000 })),
  retries: optional(NonNegativeInt)
})

/** `load_balance` as written; `link` names the pool and is required. */
export const LoadBalanceInput = Schema.Struct({
  link: AliasReference,
  mode: optional(Schema.Literals(["round_robin", "least_conn", "ip_hash"])),
  weight: optional(NonNegativeInt)
})

/** The hypervisor node config (`proxmox`, and `idlewatcher.proxmox`); `vmid` 0 or absent targets the node. */
export const ProxmoxInput = Schema.Struct({
  node: Schema.String.check(nonEmpty),
  vmid: optional(NonNegativeInt),
  service: optional(SafeArgument),
  services: optional(Schema.Array(SafeArgument)),
  files: optional(Schema.Array(AbsolutePath.check(isSafeArgumentCheck)))
})

/** `idlewatcher` as written; every duration is optional and has a default. */
export const IdlewatcherInput = Schema.Struct({
  idle_timeout: optional(GoDuration({ minimum: 1_000 })),
  wake_timeout: optional(GoDuration({ minimum: 1_000 })),
  stop_timeout: optional(GoDuration()),
  stop_method: optional(StopMethod),
  depends_on: optional(Schema.Array(AliasReference)),
  docker: optional(IdlewatcherDockerConfig),
  proxmox: optional(ProxmoxInput)
})

/** `homepage` as written: like the domain `Homepage`, but `show` defaults to true. */
export const HomepageInput = Schema.Struct({ ...Homepage.fields, show: optional(Schema.Boolean) })

/** One route as written. `alias` is the map key in a route map and a field in a single-route document. */
export const RouteInput = Schema.Struct({
  alias: optional(Schema.Union([Schema.String, Schema.Number])),
  scheme: optional(Scheme),
  host: optional(Host),
  port: optional(PortInput),
  root: optional(AbsolutePath),
  bind: optional(BindAddress),
  healthcheck: optional(Schema.NullOr(HealthcheckInput)),
  load_balance: optional(LoadBalanceInput),
  proxmox: optional(ProxmoxInput),
  idlewatcher: optional(IdlewatcherInput),
  homepage: optional(HomepageInput),
  middlewares: optional(Middlewares),
  rules: optional(Schema.Array(Rule)),
  access_log: optional(AccessLog)
})
export type RouteInput = typeof RouteInput.Type
