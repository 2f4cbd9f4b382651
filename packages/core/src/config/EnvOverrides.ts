import { SchemaAST } from "effect"
import { parse as parseScalar } from "yaml"
import { closestMatch } from "../yaml/DidYouMean.js"
import { ConfigFile } from "./ConfigFile.js"

/** Environment variables that are not config keys (they pick the file, or belong to the tooling). */
const RESERVED = new Set(["GATEHOUSE_CONFIG", "GATEHOUSE_E2E", "GATEHOUSE_COMMIT"])

type AnyField = { readonly schema?: AnyField; readonly fields?: AnyFields; readonly ast: SchemaAST.AST }
type AnyFields = Record<string, AnyField>

const isCollection = (ast: SchemaAST.AST) =>
  SchemaAST.isArrays(SchemaAST.toEncoded(ast)) || (SchemaAST.isObjects(ast) && ast.indexSignatures.length > 0)

// Scalar settings are the leaves reachable through structs only: lists and maps (users, clusters, hosts, nodes)
// cannot be expressed as one variable and stay file-only.
const scalarPaths = (fields: AnyFields, prefix: Array<string> = []): Array<Array<string>> =>
  Object.entries(fields).flatMap(([key, field]) => {
    const inner = field.schema ?? field
    if (inner.fields !== undefined) return scalarPaths(inner.fields, [...prefix, key])
    return isCollection(inner.ast) ? [] : [[...prefix, key]]
  })

/** `GATEHOUSE_HTTP_ADDR` → `["http", "addr"]`, for every scalar key of `gatehouse.yml`. */
export const envVariables: ReadonlyMap<string, ReadonlyArray<string>> = new Map(
  scalarPaths(ConfigFile.fields as unknown as AnyFields).map(
    (path) => [`GATEHOUSE_${path.join("_").toUpperCase()}`, path] as const
  )
)

/** A value to set at a config path, with where it came from (for error messages). */
export interface Override {
  readonly path: ReadonlyArray<string>
  readonly value: unknown
  readonly source: string
}

/**
 * The overrides in `env`: each `GATEHOUSE_<KEY>` becomes the value of that key, parsed as a YAML scalar so
 * `GATEHOUSE_EVENTS_HISTORY=500` is a number. Unknown `GATEHOUSE_*` variables come back as warnings with a hint
 * (they are not errors: other tools may share the prefix).
 */
export const envOverrides = (
  env: Readonly<Record<string, string | undefined>>
): { readonly overrides: ReadonlyArray<Override>; readonly warnings: ReadonlyArray<string> } => {
  const overrides: Array<Override> = []
  const warnings: Array<string> = []
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith("GATEHOUSE_") || raw === undefined || RESERVED.has(name)) continue
    const path = envVariables.get(name)
    if (path === undefined) {
      const hint = closestMatch(name, envVariables.keys())
      warnings.push(`ignoring ${name}: not a setting${hint === undefined ? "" : `; did you mean ${hint}?`}`)
      continue
    }
    overrides.push({ path, value: scalar(raw), source: name })
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
