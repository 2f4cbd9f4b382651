import * as dgram from "node:dgram"
import { isIPv6 } from "node:net"
import type { Healthcheck, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { type CheckResult, down, measure, type ProbeOutcome, up } from "./CheckResult.js"

/** An empty datagram: the least likely payload to trigger anything in the target protocol. */
const PROBE = Buffer.alloc(0)

const probe = (route: Route): Effect.Effect<ProbeOutcome> =>
  Effect.callback<ProbeOutcome>((resume) => {
    const socket = dgram.createSocket(isIPv6(route.host) ? "udp6" : "udp4")
    let open = true
    const close = () => {
      if (open) {
        open = false
        socket.close()
      }
    }
    const fail = (e: NodeJS.ErrnoException) => {
      close()
      resume(
        Effect.succeed(
          down(e.code === "ECONNREFUSED" ? `port unreachable (ICMP): ${route.host}:${route.port.target}` : e.message)
        )
      )
    }
    socket.on("error", fail)
    socket.on("message", () => {
      close()
      resume(Effect.succeed(up))
    })
    // Connecting the socket is what lets the kernel hand the ICMP port-unreachable back to us as ECONNREFUSED.
    socket.connect(route.port.target, route.host, (err?: Error) => {
      if (err) return fail(err)
      if (open) socket.send(PROBE, (e) => e && fail(e))
    })
    return Effect.sync(close)
  })

/**
 * A probe datagram on a connected UDP socket, for `udp` routes. UDP has no handshake, so the only definite
 * "down" signal is an ICMP port-unreachable (nothing bound on the target port). A reply, or silence until the
 * timeout, counts as healthy: most UDP services ignore an empty datagram. The trade-off: a host that drops
 * packets silently (firewall, host down without ICMP) also looks healthy; silence reports latency 0.
 */
export const checkUdp = (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> =>
  measure(probe(route), hc.timeout_ms, "healthy")
