import type { Idlewatcher, Listener, Route, RoutePort, Scheme } from "@gatehouse-edge/contract/domain"
import { HealthcheckDefaults } from "@gatehouse-edge/contract/domain"
import { decodeFields } from "../yaml/DecodeReporting.js"
import { boundedInput, InputPreview } from "../yaml/InputPreview.js"
import type { IssueCollector } from "../yaml/IssueCollector.js"
import { ipFamily } from "./IpAddress.js"
import { RouteInput } from "./RouteInput.js"

/** Defaults of `idlewatcher` fields a route leaves out (milliseconds). */
export const IdlewatcherDefaults = {
  idle_timeout_ms: 15 * 60_000,
  wake_timeout_ms: 30_000,
  stop_timeout_ms: 30_000,
  stop_method: "stop"
} as const

/** The address TCP/UDP routes listen on when they set no `bind`. */
export const defaultBind = "0.0.0.0"

/**
 * The scheme a route gets when it names none: `tcp` with a listening port, `https` when the target port is
 * 443 or ends in 443 (8443), `fileserver` when it has a `root` and no port, else `http`.
 */
export const defaultScheme = (port: RoutePort | undefined, hasRoot: boolean): Scheme => {
  if (port === undefined) return hasRoot ? "fileserver" : "http"
  if (port.listening > 0) return "tcp"
  return String(port.target).endsWith("443") ? "https" : "http"
}

const isStream = (scheme: Scheme) => scheme === "tcp" || scheme === "udp"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// Quoted as far as `boundedInput` goes: a route file's value may be megabytes, and the message reaches API answers,
// events and the log.
const describeValue = (value: unknown) => {
  if (Array.isArray(value)) return "a list"
  const shown = boundedInput(value)
  return `\`${shown instanceof InputPreview ? shown.text : JSON.stringify(value)}\``
}

/**
 * Validates one route as written and builds the normalized {@link Route}: every field is checked on its own
 * (all problems reported), then the rules between fields apply and defaults fill the gaps. The route comes
 * back even when there were problems — a best effort, so checks across routes (port conflicts, references)
 * still see it; the caller keeps it only when `issues` stayed empty. `undefined` when `input` is no mapping.
 */
export const normalizeRoute = (alias: string, input: unknown, issues: IssueCollector): Route | undefined => {
  // `app:` with nothing after it is a route with no fields: report what is missing, not "expected a mapping".
  const raw = input === null ? {} : input
  if (!isRecord(raw)) {
    issues.add([], `a route must be a mapping of fields, got ${describeValue(raw)}`)
    return undefined
  }
  const { value: fields, failed } = decodeFields(RouteInput, raw, issues)
  const port = fields.port
  const scheme = fields.scheme ?? defaultScheme(port, fields.root !== undefined)
  // When the scheme is implied by a port or scheme that failed to decode, rules that depend on it would only
  // add noise to the problem already reported.
  const schemeKnown = fields.scheme !== undefined || (!failed.has("scheme") && !failed.has("port"))
  const stream = isStream(scheme)

  if (schemeKnown) {
    if (scheme !== "fileserver" && !failed.has("port")) {
      if (port === undefined)
        issues.add(["port"], "missing required key `port` (the target port, e.g. `port: 8080`)", "key")
      else if (port.target === 0) issues.add(["port"], "the target port must not be 0")
    }
    if (port !== undefined && port.listening > 0 && !stream) {
      issues.add(["port"], `a listening port is only valid for tcp and udp routes, not ${scheme}`)
    }
    if (scheme === "fileserver" && !Object.hasOwn(raw, "root")) {
      issues.add(["root"], "missing required key `root` (the directory a fileserver route serves)", "key")
    }
    if (scheme !== "fileserver" && Object.hasOwn(raw, "root")) {
      issues.add(["root"], `\`root\` is only valid for fileserver routes, not ${scheme}`, "key")
    }
    if (!stream && Object.hasOwn(raw, "bind")) {
      issues.add(["bind"], `\`bind\` is only valid for tcp and udp routes, not ${scheme}`, "key")
    }
  }

  const loadBalanced = isRecord(raw.load_balance) && Object.hasOwn(raw.load_balance, "link")
  if (fields.healthcheck === null && !loadBalanced) {
    issues.add(
      ["healthcheck"],
      "`healthcheck: null` is only allowed on load-balancer routes (with `load_balance.link`); use `healthcheck: {disable: true}` to turn checks off"
    )
  }

  const bind = fields.bind ?? defaultBind
  const ports = port ?? { listening: 0, target: 0 }
  const listener: Listener | undefined = stream
    ? { network: `${scheme as "tcp" | "udp"}${ipFamily(bind) === 6 ? "6" : "4"}`, address: bind, port: ports.listening }
    : undefined
  const { healthcheck, load_balance, idlewatcher, homepage, proxmox, middlewares, rules, access_log } = fields

  return {
    alias,
    scheme,
    host: fields.host?.trim() ?? "localhost",
    port: ports,
    ...(scheme === "fileserver" && fields.root !== undefined ? { root: fields.root } : {}),
    ...(listener === undefined ? {} : { bind, listener }),
    healthcheck:
      healthcheck === null && loadBalanced
        ? null
        : {
            disable: healthcheck?.disable ?? HealthcheckDefaults.disable,
            path: healthcheck?.path ?? HealthcheckDefaults.path,
            use_get: healthcheck?.use_get ?? HealthcheckDefaults.use_get,
            interval_ms: healthcheck?.interval ?? HealthcheckDefaults.interval_ms,
            timeout_ms: healthcheck?.timeout ?? HealthcheckDefaults.timeout_ms,
            retries: healthcheck?.retries ?? HealthcheckDefaults.retries
          },
    ...(load_balance === undefined
      ? {}
      : {
          load_balance: {
            link: load_balance.link,
            mode: load_balance.mode ?? "round_robin",
            weight: load_balance.weight ?? 1
          }
        }),
    ...(proxmox === undefined ? {} : { proxmox: { ...proxmox, node: proxmox.node.trim() } }),
    ...(idlewatcher === undefined ? {} : { idlewatcher: normalizeIdlewatcher(idlewatcher) }),
    ...(homepage === undefined ? {} : { homepage: { ...homepage, show: homepage.show ?? true } }),
    ...(middlewares === undefined ? {} : { middlewares }),
    ...(rules === undefined ? {} : { rules }),
    ...(access_log === undefined ? {} : { access_log })
  }
}

const normalizeIdlewatcher = (input: NonNullable<RouteInput["idlewatcher"]>): Idlewatcher => ({
  idle_timeout_ms: input.idle_timeout ?? IdlewatcherDefaults.idle_timeout_ms,
  wake_timeout_ms: input.wake_timeout ?? IdlewatcherDefaults.wake_timeout_ms,
  stop_timeout_ms: input.stop_timeout ?? IdlewatcherDefaults.stop_timeout_ms,
  stop_method: input.stop_method ?? IdlewatcherDefaults.stop_method,
  depends_on: input.depends_on ?? [],
  ...(input.docker === undefined ? {} : { docker: input.docker }),
  ...(input.proxmox === undefined ? {} : { proxmox: { ...input.proxmox, node: input.proxmox.node.trim() } })
})
