import * as Schema from "effect/Schema"
import { Healthcheck } from "./Healthcheck.js"
import { HypervisorNodeConfig } from "./HypervisorNodeConfig.js"
import { Idlewatcher } from "./Idlewatcher.js"
import { AccessLog, Homepage, LoadBalance, Middlewares, Rule } from "./RouteExtras.js"

/** How a route reaches its target. `h2c` is HTTP/2 over cleartext. */
export const Scheme = Schema.Literals(["http", "https", "h2c", "tcp", "udp", "fileserver"])
export type Scheme = typeof Scheme.Type

/** A TCP/UDP port number, 0–65535 (0 = not set / any). */
export const PortNumber = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 })).annotate({
  identifier: "PortNumber"
})

/** A route's ports: `listening` (0 for HTTP routes served on the shared entrypoint) and `target`. */
export const RoutePort = Schema.Struct({ listening: PortNumber, target: PortNumber }).annotate({
  identifier: "RoutePort"
})
export type RoutePort = typeof RoutePort.Type

/** The socket a TCP/UDP route listens on; `network` follows the address family of `bind`. */
export const Listener = Schema.Struct({
  network: Schema.Literals(["tcp4", "tcp6", "udp4", "udp6"]),
  address: Schema.String,
  port: PortNumber
}).annotate({ identifier: "Listener" })
export type Listener = typeof Listener.Type

/**
 * A route after validation: every default applied, ports split, durations in milliseconds.
 * `bind` and `listener` are present only on TCP/UDP routes, `root` only on file servers.
 */
export const Route = Schema.Struct({
  alias: Schema.String,
  scheme: Scheme,
  host: Schema.String,
  port: RoutePort,
  root: Schema.optionalKey(Schema.String),
  bind: Schema.optionalKey(Schema.String),
  listener: Schema.optionalKey(Listener),
  healthcheck: Schema.NullOr(Healthcheck),
  load_balance: Schema.optionalKey(LoadBalance),
  proxmox: Schema.optionalKey(HypervisorNodeConfig),
  idlewatcher: Schema.optionalKey(Idlewatcher),
  homepage: Schema.optionalKey(Homepage),
  middlewares: Schema.optionalKey(Middlewares),
  rules: Schema.optionalKey(Schema.Array(Rule)),
  access_log: Schema.optionalKey(AccessLog)
}).annotate({ identifier: "Route" })
export type Route = typeof Route.Type
