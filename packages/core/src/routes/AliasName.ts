import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"

// SPEC §2: `[a-z0-9]([a-z0-9-.]*[a-z0-9])?`, or the same behind `*.` for a wildcard FQDN.
const aliasPattern = /^(?:\*\.)?[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/

/** An alias as routes are keyed: trimmed and lower-cased (`" App "` → `"app"`). */
export const normalizeAlias = (raw: string): string => raw.trim().toLowerCase()

/** Why a normalized alias is not acceptable, or `undefined` when it is. */
export const aliasProblem = (alias: string): string | undefined => {
  if (alias.length === 0) return "alias must not be empty"
  if (aliasPattern.test(alias)) return undefined
  return `invalid alias \`${alias}\`: use lower-case letters, digits, \`-\` and \`.\`, starting and ending with a letter or digit (or a wildcard such as \`*.example.com\`)`
}

/** Whether a normalized alias is acceptable. */
export const isValidAlias = (alias: string): boolean => aliasProblem(alias) === undefined

/** A reference to a route by alias (load-balancer `link`, idlewatcher `depends_on`), normalized like aliases. */
export const AliasReference = Schema.String.pipe(
  Schema.decodeTo(
    Schema.String.check(Schema.makeFilter((alias: string) => aliasProblem(alias))),
    SchemaTransformation.transform({ decode: normalizeAlias, encode: (alias) => alias })
  )
)
