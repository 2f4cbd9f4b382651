import type { ContainerTarget, ValidationIssue } from "@gatehouse-edge/contract/domain"
import { checkAcrossRoutes, type RouteCandidate } from "../routes/CrossRouteChecks.js"
import { attributeIssue, locatorOfProvided } from "../routes/ProvidedRouteLocation.js"
import { validateRouteLabels } from "../routes/RouteLabels.js"
import type { ProvidedRoute, ProviderState } from "../routes/RouteProviders.js"
import { IssueCollector } from "../yaml/IssueCollector.js"

/** What the engine lists about a container that routes are made from (`GET /containers/json`). */
export interface ListedForRoutes {
  readonly Id: string
  readonly Names?: ReadonlyArray<string>
  /** When it was created, in Unix seconds. */
  readonly Created?: number
  readonly Labels?: Readonly<Record<string, string>> | null
  readonly State?: string
  readonly Status?: string
  readonly Ports?: ReadonlyArray<{
    readonly IP?: string
    readonly PrivatePort?: number
    readonly PublicPort?: number
    readonly Type?: string
  }> | null
  readonly HostConfig?: { readonly NetworkMode?: string }
  readonly NetworkSettings?: { readonly Networks?: Readonly<Record<string, { readonly IPAddress?: string }>> | null }
}

/** A route a container's labels declare, with its container. */
export interface ContainerRoute extends ProvidedRoute {
  readonly container: ContainerTarget
}

/** The routes of one container, its problems (each naming its label), and the aliases it declares. */
export interface ContainerRouteReport {
  readonly routes: ReadonlyArray<ContainerRoute>
  readonly issues: ReadonlyArray<ValidationIssue>
  readonly aliases: ReadonlyArray<string>
}

const nameOf = (container: ListedForRoutes) => (container.Names?.[0] ?? container.Id.slice(0, 12)).replace(/^\//, "")

/**
 * The verdict of a container's HEALTHCHECK, read from the engine's summary (`Up 5 minutes (healthy)`, `Up 2
 * seconds (health: starting)`): the container list, which routes are made from, has no other field for it on
 * every engine and API version (Docker added `Health` to it only in API 1.51; Podman words it the same way).
 */
export const healthOf = (status: string | undefined): ContainerTarget["health"] => {
  const found = /\((healthy|unhealthy|health: starting)\)/.exec(status ?? "")?.[1]
  return found === "health: starting" ? "starting" : (found as "healthy" | "unhealthy" | undefined)
}

/** What the route table keeps about the container behind a route. */
export const containerTargetOf = (host: string, container: ListedForRoutes): ContainerTarget => {
  const health = healthOf(container.Status)
  return {
    host,
    id: container.Id,
    name: nameOf(container),
    state: container.State ?? "unknown",
    status: container.Status ?? "",
    created: container.Created ?? 0,
    ...(health === undefined ? {} : { health })
  }
}

/**
 * Where a container is reached when its labels do not say (SPEC §2): a published TCP port on the host (an
 * any-address publication is reached on loopback), else its first network address and first exposed port; a
 * container on the host network is this machine.
 */
export const inferTarget = (container: ListedForRoutes): { readonly host?: string; readonly port?: number } => {
  const ports = (container.Ports ?? []).filter((p) => (p.Type ?? "tcp") === "tcp")
  const published = ports.find((p) => p.PublicPort !== undefined && p.PublicPort > 0)
  if (published !== undefined) {
    const ip = published.IP ?? ""
    const host = ip === "" || ip === "0.0.0.0" ? "127.0.0.1" : ip === "::" ? "::1" : ip
    return { host, port: published.PublicPort! }
  }
  const exposed = ports.find((p) => p.PrivatePort !== undefined)?.PrivatePort
  if (container.HostConfig?.NetworkMode === "host")
    return { host: "127.0.0.1", ...(exposed === undefined ? {} : { port: exposed }) }
  const address = Object.values(container.NetworkSettings?.Networks ?? {}).find(
    (n) => (n.IPAddress ?? "") !== ""
  )?.IPAddress
  return { ...(address === undefined ? {} : { host: address }), ...(exposed === undefined ? {} : { port: exposed }) }
}

/**
 * The routes a container declares with `proxy.*` labels, validated as route files are (SPEC §2), with the
 * target inferred where no label sets it. A bad label is reported with its name (and the container) and only its
 * route is left out: the container's other routes stay. A container without `proxy.*` labels has no routes.
 */
export const containerRoutes = (host: string, container: ListedForRoutes): ContainerRouteReport => {
  const labels = { ...(container.Labels ?? {}) }
  if (!Object.keys(labels).some((key) => key.startsWith("proxy."))) return { routes: [], issues: [], aliases: [] }
  const name = nameOf(container)
  // Inferred values go in as the lowest-priority labels: any label of the container, shared or per alias, wins.
  const target = inferTarget(container)
  if (target.host !== undefined && labels["proxy.*.host"] === undefined) labels["proxy.*.host"] = target.host
  if (target.port !== undefined && labels["proxy.*.port"] === undefined) labels["proxy.*.port"] = String(target.port)
  const report = validateRouteLabels(labels, { container: name, checkReferences: false })
  const source = `docker:${host}`
  const tag = (issue: ValidationIssue): ValidationIssue => ({
    ...issue,
    provider: source,
    message: `container ${name}: ${issue.message}`
  })
  return {
    routes: report.routes.flatMap((r) =>
      r.route === undefined
        ? []
        : [
            {
              route: r.route,
              source,
              excluded: report.excluded,
              container: containerTargetOf(host, container)
            }
          ]
    ),
    issues: [...report.issues.map(tag), ...report.routes.flatMap((r) => r.issues.map(tag))],
    aliases: report.routes.map((r) => r.alias)
  }
}

const createdOf = (provided: ProvidedRoute): number => provided.container?.created ?? 0
const containerKeyOf = (provided: ProvidedRoute) =>
  provided.container === undefined ? "" : `${provided.container.host}/${provided.container.id}`

/**
 * The rules that involve several routes (duplicate aliases, overlapping listeners, load-balancer links), run over
 * the routes of every container together, as the route files are checked together. Containers are taken oldest
 * first, so the oldest of two claiming one alias keeps it whatever order the engine lists them in (dockerd: newest
 * first); the route that loses is left out and reported, naming both containers. The routes that stay keep their
 * order.
 */
export const checkAcrossContainers = (state: ProviderState): ProviderState => {
  // Created is in seconds: within one, the engine's order (newest first) is the only one there is, taken backwards.
  const listedAt = new Map<string, number>()
  for (const provided of state.routes) {
    const key = containerKeyOf(provided)
    if (!listedAt.has(key)) listedAt.set(key, listedAt.size)
  }
  const listed = (provided: ProvidedRoute) => listedAt.get(containerKeyOf(provided))!
  const checked = state.routes
    .map((provided, index) => {
      const issues = new IssueCollector(locatorOfProvided(provided), [], [provided.route.alias])
      return { provided, index, candidate: { alias: provided.route.alias, route: provided.route, issues } }
    })
    .sort(
      (a, b) =>
        createdOf(a.provided) - createdOf(b.provided) || listed(b.provided) - listed(a.provided) || a.index - b.index
    )
  // Each container's references were checked with its labels; another provider's routes are not known here.
  checkAcrossRoutes(
    checked.map((c): RouteCandidate => c.candidate),
    { checkReferences: false }
  )
  const left = new Set(checked.filter((c) => c.candidate.issues.issues.length > 0).map((c) => c.index))
  if (left.size === 0) return state
  const issues = checked.flatMap(({ provided, candidate }) =>
    candidate.issues.issues.map((issue) => attributeIssue(provided, issue))
  )
  return { ...state, routes: state.routes.filter((_, index) => !left.has(index)), issues: [...state.issues, ...issues] }
}
