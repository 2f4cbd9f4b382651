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
    // Every outcome ends the connection: a target that resets the stream keeps its side open, and a session left
    // open per check would pile up (HTTP/2 clients have no idle timeout). After the response, the headers are
    // enough; destroying the session drops any body frames unread.
    const finish = (outcome: ProbeOutcome) => {
      session.destroy()
      resume(Effect.succeed(outcome))
    }
    session.on("error", (e) => finish(down(e.message)))
    const req = session.request({ ":method": hc.use_get ? "GET" : "HEAD", ":path": hc.path }, { endStream: true })
    req.on("error", (e) => finish(down(e.message)))
    req.on("response", (headers) => finish(verdictOfStatus(Number(headers[":status"] ?? 0))))
    req.on("close", () => finish(down("stream closed before a response")))
    return Effect.sync(() => session.destroy())
  })

/** `HEAD`/`GET` over HTTP/2 cleartext with prior knowledge, for `h2c` routes. */
export const checkH2c = (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> =>
  measure(probe(route, hc), hc.timeout_ms)
