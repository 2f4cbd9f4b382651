import { isIP } from "node:net"
import * as path from "node:path"
import type { ValidationIssue } from "../domain/ValidationIssue.js"
import { decodeReporting } from "../yaml/DecodeReporting.js"
import { IssueCollector, type IssuePath, type Locator } from "../yaml/IssueCollector.js"
import { reportDuplicateKeys } from "../yaml/ValidateYaml.js"
import { parseYaml, yamlLocator } from "../yaml/YamlDocument.js"
import { ConfigFile } from "./ConfigFile.js"
import { formatListenAddress, parseListenAddress } from "./ConfigValues.js"
import { envOverrides, type Override, scalar } from "./EnvOverrides.js"
import { ConfigDefaults, type GatehouseConfig } from "./GatehouseConfig.js"

/** Where configuration comes from; later sources win: file < environment < flags. */
export interface ConfigSources {
  /** The config file, or `undefined` to run on the embedded defaults. */
  readonly file?: { readonly path: string; readonly text: string } | undefined
  readonly env: Readonly<Record<string, string | undefined>>
  /** Command-line flags of `gatehouse serve`. */
  readonly flags?: {
    readonly http?: string | undefined
    readonly grpc?: string | undefined
    readonly data?: string | undefined
  }
  /** Base for relative paths when there is no config file. */
  readonly cwd: string
}

/** The outcome of {@link loadConfig}: every problem with the key (and line/column or variable) it concerns. */
export type ConfigResult =
  | { readonly _tag: "Valid"; readonly config: GatehouseConfig; readonly warnings: ReadonlyArray<string> }
  | {
      readonly _tag: "Invalid"
      readonly issues: ReadonlyArray<ValidationIssue>
      /** The text is not well-formed YAML (an API answers 400 rather than 422). */
      readonly syntax: boolean
    }

/** The verdict of {@link checkConfig}: {@link ConfigResult} without the configuration itself. */
export type ConfigCheck =
  | { readonly _tag: "Valid"; readonly warnings: ReadonlyArray<string> }
  | Extract<ConfigResult, { readonly _tag: "Invalid" }>

const ENV_REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

// `${NAME}` in any string value reads the environment; `$$` writes a literal `$`.
const interpolate = (value: unknown, env: ConfigSources["env"], issues: IssueCollector, at: IssuePath): unknown => {
  if (typeof value === "string") {
    return value.replace(ENV_REFERENCE, (match, name: string | undefined) => {
      if (name === undefined) return "$"
      const resolved = env[name]
      if (resolved === undefined) issues.add(at, `environment variable ${name} (referenced as ${match}) is not set`)
      return resolved ?? ""
    })
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolate(item, env, issues, [...at, i]))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, issues, [...at, k])]))
  }
  return value
}

const applyOverride = (root: Record<string, unknown>, override: Override): void => {
  let node = root
  for (const key of override.path.slice(0, -1)) {
    const next = node[key]
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[key] = {}
    node = node[key] as Record<string, unknown>
  }
  node[override.path.at(-1)!] = override.value
}

// Issues about an overridden key point at the variable or flag that set it, not at the file.
const overrideLocator =
  (base: Locator, overrides: ReadonlyArray<Override>): Locator =>
  (at, anchor) => {
    const override = overrides.findLast((o) => o.path.every((key, i) => at[i] === key))
    return override === undefined ? base(at, anchor) : { label: override.source }
  }

const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."))

/**
 * Reads the configuration: the YAML file (or the embedded defaults), `${NAME}` references, `GATEHOUSE_*`
 * environment overrides and command-line flags, validated as a whole. Every problem is reported with the key it
 * concerns and where that value came from (file:line:column, the variable, or the flag).
 * Synchronous, on purpose: it reads the server's own local file at start and on reload, where `parseYaml`'s nesting
 * pre-scan is what bounds a broken file; a candidate text from the API is checked on a validation worker instead
 * (`ConfigSource.validate`).
 */
export const loadConfig = (sources: ConfigSources): ConfigResult => {
  const fileName = sources.file?.path
  let raw: unknown = {}
  let locate: Locator = () => (fileName === undefined ? {} : { file: fileName })
  const preIssues: Array<ValidationIssue> = []
  if (sources.file !== undefined) {
    const parsed = parseYaml(sources.file.text, { file: sources.file.path })
    if (parsed._tag === "Invalid") return { _tag: "Invalid", issues: parsed.issues, syntax: true }
    raw = parsed.document.value ?? {}
    locate = yamlLocator(parsed.document, sources.file.path)
    const duplicates = new IssueCollector(locate)
    reportDuplicateKeys(parsed.document, duplicates)
    preIssues.push(...duplicates.issues)
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      _tag: "Invalid",
      issues: [{ path: [], message: "expected a mapping of settings", ...locate([], "value") }],
      syntax: false
    }
  }

  const { overrides: envList, warnings } = envOverrides(sources.env)
  const flagList: Array<Override> = []
  const flags = sources.flags ?? {}
  if (flags.http !== undefined) flagList.push({ path: ["http", "addr"], value: flags.http, source: "--http" })
  if (flags.grpc !== undefined) flagList.push({ path: ["grpc", "addr"], value: flags.grpc, source: "--grpc" })
  if (flags.data !== undefined) flagList.push({ path: ["data_dir"], value: scalar(flags.data), source: "--data" })
  const overrides = [...envList, ...flagList]

  const issues = new IssueCollector(overrideLocator(locate, overrides), preIssues)
  const value = interpolate(raw, sources.env, issues, []) as Record<string, unknown>
  for (const override of overrides) applyOverride(value, override)
  const file = decodeReporting(ConfigFile, value, issues)
  if (file === undefined || issues.issues.length > 0) return { _tag: "Invalid", issues: issues.issues, syntax: false }

  const baseDir = fileName === undefined ? sources.cwd : path.dirname(path.resolve(sources.cwd, fileName))
  const resolvePath = (p: string) => path.resolve(baseDir, p)
  // Paths from a variable or flag are relative to where the command runs, like any command-line path.
  const resolveSetting = (key: string, p: string) =>
    overrides.some((o) => o.path.join(".") === key) ? path.resolve(sources.cwd, p) : resolvePath(p)
  const http = file.http?.addr ?? parseListenAddress(ConfigDefaults.httpAddr)!
  const grpc = file.grpc?.addr ?? parseListenAddress(ConfigDefaults.grpcAddr)!
  const authConfigured = (file.auth?.users?.length ?? 0) > 0 || file.auth?.oidc !== undefined

  for (const [section, address] of [
    ["http", http],
    ["grpc", grpc]
  ] as const) {
    if (!authConfigured && !isLoopback(address.host)) {
      issues.add(
        [section, "addr"],
        `${formatListenAddress(address)} is not a loopback address, but no authentication is configured ` +
          "(auth.users or auth.oidc): bind to 127.0.0.1 or configure authentication first"
      )
    }
  }
  for (const [key, cluster] of (file.hypervisor?.clusters ?? []).entries()) {
    const token = cluster.token_id !== undefined
    const secret = cluster.secret !== undefined || cluster.secret_file !== undefined
    const password = cluster.username !== undefined
    if (!token && !password) {
      issues.add(["hypervisor", "clusters", key], "set token_id + secret, or username + password")
    }
    if (token && !secret)
      issues.add(["hypervisor", "clusters", key, "token_id"], "token_id needs secret or secret_file")
  }
  if (issues.issues.length > 0) return { _tag: "Invalid", issues: issues.issues, syntax: false }

  return {
    _tag: "Valid",
    warnings,
    config: {
      configFile: fileName === undefined ? undefined : path.resolve(sources.cwd, fileName),
      http: { host: http.host, port: http.port, maxBodyBytes: file.http?.max_body ?? ConfigDefaults.maxBodyBytes },
      grpc: {
        host: grpc.host,
        port: grpc.port,
        unixSocket: file.grpc?.unix_socket === undefined ? undefined : resolvePath(file.grpc.unix_socket),
        insecure: file.grpc?.insecure ?? false,
        tls:
          file.grpc?.tls === undefined
            ? undefined
            : { cert: resolvePath(file.grpc.tls.cert), key: resolvePath(file.grpc.tls.key) }
      },
      dataDir: resolveSetting("data_dir", file.data_dir ?? ConfigDefaults.dataDir),
      routesDir: resolveSetting("routes_dir", file.routes_dir ?? ConfigDefaults.routesDir),
      authConfigured,
      events: { history: file.events?.history ?? ConfigDefaults.eventsHistory },
      log: { level: file.log?.level ?? "info", format: file.log?.format ?? "auto" },
      file
    }
  }
}

/**
 * Checks a configuration as {@link loadConfig} reads it, keeping only the verdict: what validating an edit needs,
 * and a value that can cross a thread (the configuration holds `Redacted` secrets, which cannot).
 */
export const checkConfig = (sources: ConfigSources): ConfigCheck => {
  const result = loadConfig(sources)
  return result._tag === "Valid" ? { _tag: "Valid", warnings: result.warnings } : result
}
