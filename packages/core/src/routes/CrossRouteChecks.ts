import type { Listener, Route } from "@gatehouse-edge/contract/domain"
import { didYouMean } from "../yaml/DidYouMean.js"
import type { IssueCollector } from "../yaml/IssueCollector.js"
import { canonicalIp, ipFamily, isWildcardAddress } from "./IpAddress.js"

/** One route under validation: its alias, its best-effort normalized form, and where its issues go. */
export interface RouteCandidate {
  readonly alias: string
  readonly route: Route | undefined
  readonly issues: IssueCollector
}

/** Options of {@link checkAcrossRoutes}. */
export interface CrossRouteOptions {
  /**
   * Aliases that exist outside the routes being validated (routes of other providers). When `undefined` and
   * `checkReferences` is false, `depends_on` targets are not required to exist (a container's labels cannot
   * know the other containers).
   */
  readonly knownAliases?: Iterable<string> | undefined
  /** Whether `depends_on` must name existing routes. Default true. */
  readonly checkReferences?: boolean | undefined
}

const protocolOf = (listener: Listener) => (listener.network.startsWith("tcp") ? "tcp" : "udp")

/**
 * Two listeners collide when they use the same protocol and port and their addresses overlap: equal, or one is
 * the wildcard of the other's family (`0.0.0.0` covers every IPv4 address, `::` every IPv6 one). IPv4 and
 * IPv6 never overlap because tcp6/udp6 listeners are IPv6-only; tcp and udp never collide.
 */
export const listenersOverlap = (a: Listener, b: Listener): boolean => {
  if (a.port === 0 || b.port === 0 || a.port !== b.port || protocolOf(a) !== protocolOf(b)) return false
  if (ipFamily(a.address) !== ipFamily(b.address)) return false
  return (
    isWildcardAddress(a.address) || isWildcardAddress(b.address) || canonicalIp(a.address) === canonicalIp(b.address)
  )
}

const checkDuplicateAliases = (candidates: ReadonlyArray<RouteCandidate>) => {
  const first = new Map<string, RouteCandidate>()
  for (const candidate of candidates) {
    const earlier = first.get(candidate.alias)
    if (earlier === undefined) first.set(candidate.alias, candidate)
    else {
      candidate.issues.add(
        [],
        `duplicate alias \`${candidate.alias}\` (first defined at ${earlier.issues.describe()})`,
        "key"
      )
    }
  }
}

// Grouped by protocol and port, so only routes that share both are compared.
const checkListeners = (candidates: ReadonlyArray<RouteCandidate>) => {
  const byPort = new Map<string, Array<{ candidate: RouteCandidate; listener: Listener }>>()
  for (const candidate of candidates) {
    const listener = candidate.route?.listener
    if (listener === undefined || listener.port === 0) continue
    const key = `${protocolOf(listener)}:${listener.port}`
    const group = byPort.get(key) ?? []
    const clash = group.find((other) => listenersOverlap(other.listener, listener))
    if (clash !== undefined) {
      candidate.issues.add(
        ["port"],
        `listening port ${listener.port}/${protocolOf(listener)} on ${listener.address} conflicts with route \`${clash.candidate.alias}\` (${clash.listener.address}, defined at ${clash.candidate.issues.describe()})`
      )
    }
    group.push({ candidate, listener })
    byPort.set(key, group)
  }
}

const checkDependencies = (candidates: ReadonlyArray<RouteCandidate>, options: CrossRouteOptions) => {
  const existing = new Set(candidates.map((c) => c.alias))
  for (const alias of options.knownAliases ?? []) existing.add(alias)
  // A load-balancer pool is reachable under its link name, so it can be depended on.
  for (const c of candidates) if (c.route?.load_balance !== undefined) existing.add(c.route.load_balance.link)
  const mustExist = options.checkReferences ?? true
  for (const candidate of candidates) {
    const dependsOn = candidate.route?.idlewatcher?.depends_on ?? []
    dependsOn.forEach((target, index) => {
      const path = ["idlewatcher", "depends_on", index]
      if (target === candidate.alias) candidate.issues.add(path, "a route cannot depend on itself")
      else if (mustExist && !existing.has(target)) {
        candidate.issues.add(path, `depends on \`${target}\`, which is not a route${didYouMean(target, existing)}`)
      }
    })
  }
}

// The pool is served under its link name, so a route of that name outside the pool would shadow it.
const checkLoadBalancerLinks = (candidates: ReadonlyArray<RouteCandidate>) => {
  const byAlias = new Map(candidates.map((c) => [c.alias, c]))
  for (const candidate of candidates) {
    const link = candidate.route?.load_balance?.link
    if (link === undefined) continue
    const namesake = byAlias.get(link)
    if (namesake !== undefined && namesake.route?.load_balance?.link !== link) {
      candidate.issues.add(
        ["load_balance", "link"],
        `load-balancer link \`${link}\` collides with route \`${link}\` (defined at ${namesake.issues.describe()}), which is not in the pool`
      )
    }
  }
}

/**
 * The rules that involve several routes, reported on the route that breaks them (the later one, for
 * duplicates and port conflicts): duplicate aliases, overlapping TCP/UDP listeners, `depends_on` targets that
 * are missing or the route itself, and load-balancer links that collide with a route outside the pool.
 */
export const checkAcrossRoutes = (candidates: ReadonlyArray<RouteCandidate>, options: CrossRouteOptions = {}): void => {
  checkDuplicateAliases(candidates)
  checkListeners(candidates)
  checkDependencies(candidates, options)
  checkLoadBalancerLinks(candidates)
}
