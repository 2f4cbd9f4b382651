import * as net from "node:net"
import type { Healthcheck, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { type CheckResult, down, measure, type ProbeOutcome, up } from "./CheckResult.js"

const probe = (route: Route): Effect.Effect<ProbeOutcome> =>
  Effect.callback<ProbeOutcome>((resume) => {
    const socket = net.connect({ host: route.host, port: route.port.target })
    socket.on("error", (e) => resume(Effect.succeed(down(e.message))))
    socket.on("connect", () => {
      // A completed handshake is the whole check; close at once so the target sees no half-open clients.
      socket.destroy()
      resume(Effect.succeed(up))
    })
    return Effect.sync(() => socket.destroy())
  })

/** A TCP connect to `host:target` within the timeout, for `tcp` routes. */
export const checkTcp = (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> =>
  measure(probe(route), hc.timeout_ms)
