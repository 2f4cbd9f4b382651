import type { ContainerTarget, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import type { CheckResult } from "./CheckResult.js"
import type { Monitor } from "./Monitor.js"

/**
 * What the engine already says about a container's route, without a probe: a container that is not running is
 * down (napping when an idlewatcher wakes it on demand), and a running one with a HEALTHCHECK is what that check
 * says. `undefined`: running without a HEALTHCHECK, so the route's own check decides.
 */
export const containerVerdict = (route: Route, target: ContainerTarget): CheckResult | undefined => {
  if (target.state !== "running") {
    const summary = `container ${target.name} is ${target.state}${target.status === "" ? "" : ` (${target.status})`}`
    return route.idlewatcher !== undefined && (target.state === "exited" || target.state === "paused")
      ? { status: "napping", latency_ms: 0, error: summary }
      : { status: "unhealthy", latency_ms: 0, error: summary }
  }
  switch (target.health) {
    case undefined:
      return undefined
    case "healthy":
      return { status: "healthy", latency_ms: 0 }
    case "starting":
      return { status: "starting", latency_ms: 0 }
    case "unhealthy":
      return { status: "unhealthy", latency_ms: 0, error: `container ${target.name}: its HEALTHCHECK fails` }
  }
}

/**
 * The monitor of a route whose target runs in a container (SPEC §3): the container's state and HEALTHCHECK when
 * they decide, the route's own probe otherwise. The container's state is part of the key, so a container that
 * stops or starts replaces the monitor at once (and the replacement checks at once), while the route's health
 * carries over to it: the transition, and its `health/down` event, happen on that first check.
 */
export const containerMonitor = (route: Route, target: ContainerTarget, probe: Monitor): Monitor => {
  const verdict = containerVerdict(route, target)
  const key = JSON.stringify(["container", probe.key, target.id, target.state, target.health ?? null])
  if (verdict === undefined) return { ...probe, key, lineage: probe.key, immediate: true }
  return {
    // The engine's word is final: no retries before a stopped container counts as down.
    healthcheck: { ...probe.healthcheck, retries: 0 },
    check: Effect.succeed(verdict),
    key,
    lineage: probe.key,
    immediate: true
  }
}
