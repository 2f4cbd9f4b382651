import type { ContainerTarget, ValidationIssue } from "@gatehouse-edge/contract/domain"
import { validateRouteLabels } from "../routes/RouteLabels.js"
import type { ProvidedRoute } from "../routes/RouteProviders.js"

/** What the engine lists about a container that routes are made from (`GET /containers/json`). */
export interface ListedForRoutes {
  readonly Id: string
  readonly Names?: ReadonlyArray<string>
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

/** The routes of one container, its problems (each naming its label), and the aliases it declares. */
export interface ContainerRouteReport {
  readonly routes: ReadonlyArray<ProvidedRoute>
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
        : [{ route: r.route, source, excluded: report.excluded, container: containerTargetOf(host, container) }]
    ),
    issues: [...report.issues.map(tag), ...report.routes.flatMap((r) => r.issues.map(tag))],
    aliases: report.routes.map((r) => r.alias)
  }
}
