import * as path from "node:path"
import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import { isRouteFileName } from "../routes/RouteFiles.js"
import { decodeReporting } from "../yaml/DecodeReporting.js"
import { IssueCollector, type IssuePath, type Locator } from "../yaml/IssueCollector.js"
import { reportDuplicateKeys } from "../yaml/ValidateYaml.js"
import { parseYaml, yamlLocator } from "../yaml/YamlDocument.js"
import { ConfigFile } from "./ConfigFile.js"
import { takesTextOnly } from "./ConfigKeys.js"
import { checkConfigRules } from "./ConfigRules.js"
import { envOverrides, type Override, scalar } from "./EnvOverrides.js"
import type { GatehouseConfig } from "./GatehouseConfig.js"
import { overrideLocator } from "./OverrideLocator.js"
import { realPathOr } from "./RealPath.js"
import { resolveConfig } from "./ResolveConfig.js"

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

/** A value the config read from the environment: the variable's name, and what it held. */
interface EnvValue {
  readonly name: string
  readonly value: string
}

/** What {@link interpolate} reads from and notes what it read in. */
interface Interpolation {
  readonly env: ConfigSources["env"]
  readonly issues: IssueCollector
  /** Whether the value at a path is written unquoted in the file. */
  readonly isPlainScalar: (path: IssuePath) => boolean
  readonly read: Array<EnvValue>
}

// `${NAME}` in any string value reads the environment; `$$` writes a literal `$`. What was read is noted in `read`.
// An unquoted value with a reference reads as YAML would read the text it makes (`history: ${H}` with H=500 is the
// number 500, as GATEHOUSE_EVENTS_HISTORY=500 is), unless its key takes text only (a secret `0123` stays text); a
// quoted one stays a string.
const interpolate = (value: unknown, at: IssuePath, context: Interpolation): unknown => {
  if (typeof value === "string") {
    let referenced = false
    const text = value.replace(ENV_REFERENCE, (match, name: string | undefined) => {
      if (name === undefined) return "$"
      referenced = true
      const resolved = context.env[name]
      if (resolved === undefined) {
        context.issues.add(at, `environment variable ${name} (referenced as ${match}) is not set`)
      } else context.read.push({ name, value: resolved })
      return resolved ?? ""
    })
    return referenced && context.isPlainScalar(at) && !takesTextOnly(at) ? scalar(text) : text
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolate(item, [...at, i], context))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, [...at, k], context)]))
  }
  return value
}

// Shorter values are not worth hiding, and replacing them would mangle the messages around them.
const MIN_HIDDEN_LENGTH = 4

/**
 * `issues` without the values read from the environment: a message that quotes a bad value (`got "..."`) shows
 * `${NAME}` in its place. The environment is the server's, and a config can be checked through the API: a
 * reference under any key must not read a variable back (the keys named like secrets are redacted anyway).
 */
const withoutEnvValues = (
  issues: ReadonlyArray<ValidationIssue>,
  read: ReadonlyArray<EnvValue>
): ReadonlyArray<ValidationIssue> => {
  const hidden = read
    .filter((r) => r.value.length >= MIN_HIDDEN_LENGTH)
    .flatMap((r) => [r.value, JSON.stringify(r.value).slice(1, -1)].map((text) => ({ text, shown: `\${${r.name}}` })))
    // The longest first: a value that contains another is hidden whole.
    .sort((a, b) => b.text.length - a.text.length)
  if (hidden.length === 0) return issues
  return issues.map((issue) => {
    const message = hidden.reduce((text, h) => text.replaceAll(h.text, h.shown), issue.message)
    return message === issue.message ? issue : { ...issue, message }
  })
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

const overridesOf = (sources: ConfigSources) => {
  const { overrides, warnings } = envOverrides(sources.env)
  const flags = sources.flags ?? {}
  const fromFlags: Array<Override> = []
  if (flags.http !== undefined) fromFlags.push({ path: ["http", "addr"], value: flags.http, source: "--http" })
  if (flags.grpc !== undefined) fromFlags.push({ path: ["grpc", "addr"], value: flags.grpc, source: "--grpc" })
  if (flags.data !== undefined) fromFlags.push({ path: ["data_dir"], value: flags.data, source: "--data" })
  return { overrides: [...overrides, ...fromFlags], warnings }
}

const load = (sources: ConfigSources, withOverrides: boolean): ConfigResult => {
  const fileName = sources.file?.path
  let raw: unknown = {}
  let locate: Locator = () => (fileName === undefined ? {} : { file: fileName })
  let isPlainScalar = (_: IssuePath) => false
  const preIssues: Array<ValidationIssue> = []
  if (sources.file !== undefined) {
    const parsed = parseYaml(sources.file.text, { file: sources.file.path })
    if (parsed._tag === "Invalid") return { _tag: "Invalid", issues: parsed.issues, syntax: true }
    raw = parsed.document.value ?? {}
    locate = yamlLocator(parsed.document, sources.file.path)
    isPlainScalar = parsed.document.isPlainScalar
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

  const { overrides, warnings } = withOverrides ? overridesOf(sources) : { overrides: [], warnings: [] }
  // A `${NAME}` is written in the file, so a problem with it points at its line and column even when a variable
  // or flag replaces the value.
  const referenced = new IssueCollector(locate)
  const read: Array<EnvValue> = []
  const interpolation: Interpolation = { env: sources.env, issues: referenced, isPlainScalar, read }
  const value = interpolate(raw, [], interpolation) as Record<string, unknown>
  for (const override of overrides) applyOverride(value, override)
  const decoded = new IssueCollector(overrideLocator(locate, raw, overrides))
  // An unset variable is the problem; the empty string it left behind is not a second one.
  const unset = new Set(referenced.issues.map((issue) => issue.path.join("\u0000")))
  const problems = () =>
    withoutEnvValues(
      [...preIssues, ...referenced.issues, ...decoded.issues.filter((issue) => !unset.has(issue.path.join("\u0000")))],
      read
    )
  const file = decodeReporting(ConfigFile, value, decoded)
  if (file === undefined || problems().length > 0) return { _tag: "Invalid", issues: problems(), syntax: false }
  checkConfigRules(file, decoded)
  if (problems().length > 0) return { _tag: "Invalid", issues: problems(), syntax: false }

  const configFile = fileName === undefined ? undefined : path.resolve(sources.cwd, fileName)
  const baseDir = configFile === undefined ? sources.cwd : path.dirname(configFile)
  // Paths from a variable or flag are relative to where the command runs, like any command-line path.
  const resolvePath = (key: ReadonlyArray<string | number>, p: string) =>
    path.resolve(overrides.some((o) => o.path.join(".") === key.join(".")) ? sources.cwd : baseDir, p)
  const config = resolveConfig(file, resolvePath, configFile)
  if (configFile !== undefined && holdsRouteFile(config.routesDir, configFile)) {
    decoded.add(
      ["routes_dir"],
      `the routes directory ${config.routesDir} holds the config file ${path.basename(configFile)}: it would be ` +
        "loaded as a route file and served by the files API with its secrets; give route files a directory " +
        "of their own"
    )
    return { _tag: "Invalid", issues: problems(), syntax: false }
  }
  return { _tag: "Valid", warnings, config }
}

// Every `*.yml`/`*.yaml` file of the routes directory is a route file, and `files:read` serves them. Compared as
// the file system resolves them: a routes directory that reaches the config file's directory through a link
// (`routes -> .`) holds it as surely as `.` does; so does one that holds the file a linked config file leads to.
const holdsRouteFile = (routesDir: string, file: string): boolean => {
  const dir = realPathOr(routesDir)
  return [file, realPathOr(file)].some(
    (entry) => realPathOr(path.dirname(entry)) === dir && isRouteFileName(path.basename(entry))
  )
}

/**
 * Reads the configuration: the YAML file (or the embedded defaults), `${NAME}` references, `GATEHOUSE_*`
 * environment overrides and command-line flags, validated as a whole. Every problem is reported with the key it
 * concerns and where that value came from (file:line:column, the variable, or the flag).
 * Synchronous, on purpose: it reads the server's own local file at start and on reload, where `parseYaml`'s nesting
 * pre-scan is what bounds a broken file; a candidate text from the API is checked on a validation worker instead
 * (`ConfigSource.validate`, through {@link checkConfigEdit}).
 */
export const loadConfig = (sources: ConfigSources): ConfigResult => load(sources, true)

/**
 * Checks a config file as a file: its own values, with `${NAME}` read from `env` (the environment it is meant to
 * run in) but no `GATEHOUSE_*` variable or flag applied, so none can hide a problem in the file and every issue
 * points at file:line:column. What editing and `gatehouse validate --config` check.
 */
export const validateConfigFile = (sources: {
  readonly file: { readonly path: string; readonly text: string }
  readonly env: ConfigSources["env"]
  readonly cwd: string
}): ConfigResult => load(sources, false)

/**
 * Checks an edited config text: as a file first ({@link validateConfigFile}), then as a restart would read it, with
 * the server's variables and flags (so a change that would stop the next start is refused too). Keeps only the
 * verdict: a value that can cross a thread (the configuration holds `Redacted` secrets, which cannot).
 */
export const checkConfigEdit = (
  sources: ConfigSources & { readonly file: { readonly path: string; readonly text: string } }
): ConfigCheck => {
  const asFile = validateConfigFile({ file: sources.file, env: sources.env, cwd: sources.cwd })
  const result = asFile._tag === "Invalid" ? asFile : loadConfig(sources)
  return result._tag === "Valid" ? { _tag: "Valid", warnings: result.warnings } : result
}
