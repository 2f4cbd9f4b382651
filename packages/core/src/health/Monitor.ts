import type { Healthcheck, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CheckResult } from "./CheckResult.js"
import { checkFileServer } from "./FileServerMonitor.js"
import { checkH2c } from "./H2cMonitor.js"
import { checkHttp } from "./HttpMonitor.js"
import { checkTcp } from "./TcpMonitor.js"
import { checkUdp } from "./UdpMonitor.js"

/** A route's health check, ready to run on its schedule. */
export interface Monitor {
  readonly healthcheck: Healthcheck
  /** One check; never fails (a broken check is a `CheckResult` with status `error`). */
  readonly check: Effect.Effect<CheckResult>
  /**
   * Everything the check depends on, as a string: two monitors with the same key do the same thing, so a
   * route whose other fields change keeps its running monitor.
   */
  readonly key: string
  /**
   * Monitors of one lineage carry the route's health over from one to the next (default: the key, so a changed
   * check starts afresh): a container that stopped gets a new monitor, but its route was healthy until then.
   */
  readonly lineage?: string | undefined
  /** Check at once instead of at a random point of the first second: the verdict is already known (no probe). */
  readonly immediate?: boolean | undefined
}

const runner = (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> => {
  switch (route.scheme) {
    case "http":
    case "https":
      return checkHttp(route, hc)
    case "h2c":
      return checkH2c(route, hc)
    case "tcp":
      return checkTcp(route, hc)
    case "udp":
      return checkUdp(route, hc)
    case "fileserver":
      return checkFileServer(route, hc)
  }
}

/** The monitor for a route, or none when its health check is absent (`null`) or disabled. */
export const monitorFor = (route: Route): Option.Option<Monitor> => {
  const hc = route.healthcheck
  if (hc === null || hc.disable) return Option.none()
  const key = JSON.stringify([route.scheme, route.host, route.port.target, route.root ?? null, hc])
  const check = runner(route, hc).pipe(
    // A thrown exception inside a node API callback is a bug or an input node rejects (e.g. a malformed host):
    // report it as the route's `error` status instead of killing the monitor.
    Effect.catchDefect((defect) =>
      Effect.succeed<CheckResult>({
        status: "error",
        latency_ms: 0,
        error: defect instanceof Error ? defect.message : String(defect)
      })
    )
  )
  return Option.some({ healthcheck: hc, check, key })
}

/** Runs one check of a route right away; `None` when the route has no monitor. */
export const checkRoute = (route: Route): Effect.Effect<Option.Option<CheckResult>> =>
  Option.match(monitorFor(route), {
    onNone: () => Effect.succeedNone,
    onSome: (m) => Effect.asSome(m.check)
  })
