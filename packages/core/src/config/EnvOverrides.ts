import * as SchemaAST from "effect/SchemaAST"
import { parse as parseScalar } from "yaml"
import { closestMatch } from "../yaml/DidYouMean.js"
import { ConfigFile } from "./ConfigFile.js"
import { takesTextOnly } from "./ConfigKeys.js"

/**
 * Environment variables that are not config keys: they pick the file, give the CLI its API key, or belong to the
 * tooling.
 */
const RESERVED = new Set(["GATEHOUSE_CONFIG", "GATEHOUSE_API_KEY", "GATEHOUSE_E2E", "GATEHOUSE_COMMIT"])

type AnyField = { readonly schema?: AnyField; readonly fields?: AnyFields; readonly ast: SchemaAST.AST }
type AnyFields = Record<string, AnyField>

const isCollection = (ast: SchemaAST.AST) =>
  SchemaAST.isArrays(SchemaAST.toEncoded(ast)) || (SchemaAST.isObjects(ast) && ast.indexSignatures.length > 0)

interface Setting {
  readonly path: Array<string>
  /** Written as text only (a path, a secret): the variable's value is taken as it is, never read as YAML. */
  readonly text: boolean
}

// Scalar settings are the leaves reachable through structs only: lists and maps (users, clusters, hosts, nodes)
// cannot be expressed as one variable and stay file-only.
const scalarSettings = (fields: AnyFields, prefix: Array<string> = []): Array<Setting> =>
  Object.entries(fields).flatMap(([key, field]) => {
    const inner = field.schema ?? field
    if (inner.fields !== undefined) return scalarSettings(inner.fields, [...prefix, key])
    if (isCollection(inner.ast)) return []
    return [{ path: [...prefix, key], text: takesTextOnly([...prefix, key]) }]
  })

const settings: ReadonlyMap<string, Setting> = new Map(
  scalarSettings(ConfigFile.fields as unknown as AnyFields).map(
    (setting) => [`GATEHOUSE_${setting.path.join("_").toUpperCase()}`, setting] as const
  )
)

/** `GATEHOUSE_HTTP_ADDR` → `["http", "addr"]`, for every scalar key of `gatehouse.yml`. */
export const envVariables: ReadonlyMap<string, ReadonlyArray<string>> = new Map(
  [...settings].map(([name, setting]) => [name, setting.path] as const)
)

/** A value to set at a config path, with where it came from (for error messages). */
export interface Override {
  readonly path: ReadonlyArray<string>
  readonly value: unknown
  readonly source: string
}

/**
 * The overrides in `env`: each `GATEHOUSE_<KEY>` becomes the value of that key, parsed as a YAML scalar so
 * `GATEHOUSE_EVENTS_HISTORY=500` is a number; a key that only takes text (a path, a secret) gets the value as it
 * is, so a secret `0123` or a directory `2024` is not turned into a number. Unknown `GATEHOUSE_*` variables come back as warnings with a hint
 * (they are not errors: other tools may share the prefix).
 */
export const envOverrides = (
  env: Readonly<Record<string, string | undefined>>
): { readonly overrides: ReadonlyArray<Override>; readonly warnings: ReadonlyArray<string> } => {
  const overrides: Array<Override> = []
  const warnings: Array<string> = []
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith("GATEHOUSE_") || raw === undefined || RESERVED.has(name)) continue
    const setting = settings.get(name)
    if (setting === undefined) {
      const hint = closestMatch(name, settings.keys())
      warnings.push(`ignoring ${name}: not a setting${hint === undefined ? "" : `; did you mean ${hint}?`}`)
      continue
    }
    overrides.push({ path: setting.path, value: setting.text ? raw : scalar(raw), source: name })
  }
  return { overrides, warnings }
}

/** A command-line or environment string as YAML would read it (`true`, `500`, `1MiB`, `127.0.0.1:8888`). */
export const scalar = (raw: string): unknown => {
  try {
    const value = parseScalar(raw)
    return value === null || typeof value === "object" ? raw : value
  } catch {
    return raw
  }
}
