import * as http2 from "node:http2"
import { isIPv6 } from "node:net"
import type { Healthcheck, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { type CheckResult, down, measure, type ProbeOutcome } from "./CheckResult.js"
import { verdictOfStatus } from "./HttpMonitor.js"

const authority = (host: string, port: number): string => `http://${isIPv6(host) ? `[${host}]` : host}:${port}`

const probe = (route: Route, hc: Healthcheck): Effect.Effect<ProbeOutcome> =>
  Effect.callback<ProbeOutcome>((resume) => {
    // `http://` makes node:http2 speak HTTP/2 with prior knowledge (no TLS, no Upgrade dance), which is what h2c means.
    const session = http2.connect(authority(route.host, route.port.target))
    session.on("error", (e) => resume(Effect.succeed(down(e.message))))
    const req = session.request({ ":method": hc.use_get ? "GET" : "HEAD", ":path": hc.path }, { endStream: true })
    req.on("error", (e) => resume(Effect.succeed(down(e.message))))
    req.on("response", (headers) => {
      // Headers are enough; destroying the session drops any body frames unread.
      session.destroy()
      resume(Effect.succeed(verdictOfStatus(Number(headers[":status"] ?? 0))))
    })
    req.on("close", () => resume(Effect.succeed(down("stream closed before a response"))))
    return Effect.sync(() => session.destroy())
  })

/** `HEAD`/`GET` over HTTP/2 cleartext with prior knowledge, for `h2c` routes. */
export const checkH2c = (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> =>
  measure(probe(route, hc), hc.timeout_ms)
