import * as http from "node:http"
import * as https from "node:https"
import type { Healthcheck, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { type CheckResult, down, measure, type ProbeOutcome, up } from "./CheckResult.js"

/** 2xx–4xx mean the server is up and routing (a 404 or 401 on the probe path is still a live server); 5xx do not. */
export const verdictOfStatus = (status: number): ProbeOutcome => (status < 500 ? up : down(`HTTP ${status}`))

const probe = (route: Route, hc: Healthcheck): Effect.Effect<ProbeOutcome> =>
  Effect.callback<ProbeOutcome>((resume) => {
    const options: https.RequestOptions = {
      host: route.host,
      port: route.port.target,
      path: hc.path,
      method: hc.use_get ? "GET" : "HEAD",
      // A fresh connection per check: a pooled keep-alive socket could hide a target that stopped accepting.
      agent: false,
      headers: { "user-agent": "gatehouse-healthcheck", accept: "*/*" }
    }
    const req =
      route.scheme === "https"
        ? https.request({
            ...options,
            // Homelab targets mostly serve self-signed or private-CA certificates. The check asks "is it serving?",
            // not "is it trusted?"; certificate trust belongs to the proxy's upstream settings, not to health.
            rejectUnauthorized: false
          })
        : http.request(options)
    // `on`, not `once`: destroying the request can emit a second error, which must not go unhandled.
    req.on("error", (e) => resume(Effect.succeed(down(e.message))))
    req.on("response", (res) => {
      // The status line is all we need: never read (or buffer) a GET body, drop the connection right away.
      res.on("error", () => {})
      res.destroy()
      req.destroy()
      resume(Effect.succeed(verdictOfStatus(res.statusCode ?? 0)))
    })
    // The request goes out once the connection is up. Written before, it waits in the socket, and a refused
    // connection then fails that write too: one more error with a formatted stack, a sixth of a refused check's
    // CPU (bench/README.md, "Idle cost").
    req.on("socket", (socket) => {
      if (socket.connecting) socket.once("connect", () => req.end())
      else req.end()
    })
    return Effect.sync(() => req.destroy())
  })

/** `HEAD` (or `GET` with `use_get`) on `scheme://host:target/path` for `http` and `https` routes. */
export const checkHttp = (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> =>
  measure(probe(route, hc), hc.timeout_ms)
