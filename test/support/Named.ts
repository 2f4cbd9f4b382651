import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Effect, type Scope } from "effect"
import { type Daemon, startDaemon } from "./Daemon.js"
import { freePort } from "./FreePort.js"

/** A real BIND 9 `named`, authoritative for one test zone, accepting TSIG-signed dynamic updates (RFC 2136). */
export interface Named extends Daemon {
  readonly port: number
  /** `gatehouse.test`: every name in it (wildcard) has the address 127.0.0.1. */
  readonly zone: string
  readonly keyName: string
  /** The TSIG key's secret, base64 as `tsig-keygen` prints it (HMAC-SHA256). */
  readonly keySecret: string
}

const accepts = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/**
 * Starts `/usr/sbin/named -f` (Debian `bind9`) on a free loopback port (UDP and TCP) with its config, zone, journal
 * and PID file in `dir`: no recursion, no control channel, a key made by `tsig-keygen` that may update the zone.
 */
export const startNamed = (dir: string): Effect.Effect<Named, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const port = yield* freePort
    const zone = "gatehouse.test"
    const keyName = "gatehouse-test"
    const keyConf = execFileSync("tsig-keygen", ["-a", "hmac-sha256", keyName]).toString()
    const keySecret = /secret "([^"]+)"/.exec(keyConf)![1]!
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, "key.conf"), keyConf)
    fs.writeFileSync(
      path.join(dir, "zone.db"),
      [
        "$TTL 60",
        `@ IN SOA ns.${zone}. admin.${zone}. 1 60 60 600 60`,
        `@ IN NS ns.${zone}.`,
        "@ IN A 127.0.0.1",
        "* IN A 127.0.0.1",
        ""
      ].join("\n")
    )
    fs.writeFileSync(
      path.join(dir, "named.conf"),
      `options {
  directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  recursion no;
  dnssec-validation no;
  allow-query { any; };
  notify no;
};
controls { };
include "${dir}/key.conf";
zone "${zone}" { type primary; file "${dir}/zone.db"; allow-update { key "${keyName}"; }; };
`
    )
    const daemon = yield* startDaemon({
      label: "named",
      command: "/usr/sbin/named",
      args: ["-f", "-c", path.join(dir, "named.conf"), "-n", "1"],
      ready: accepts(port)
    })
    return { ...daemon, port, zone, keyName, keySecret }
  })
