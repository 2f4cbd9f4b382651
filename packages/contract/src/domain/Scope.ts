import * as Schema from "effect/Schema"

/** The areas of the API a scope can grant, one per capability. */
export const ScopeAreas = [
  "routes",
  "files",
  "health",
  "events",
  "hypervisor",
  "docker",
  "certs",
  "auth_requests",
  "users"
] as const
export type ScopeArea = (typeof ScopeAreas)[number]

/** `read`: look; `write`: change or control (start, stop, approve, ...). `write` includes `read`. */
export type ScopeLevel = "read" | "write"

/**
 * What a caller may do: `<area>:read`, `<area>:write` (which includes `<area>:read`), or `admin` (everything,
 * including API keys and sessions). API keys carry scopes; sessions get the scopes of their role.
 */
export type Scope = `${ScopeArea}:${ScopeLevel}` | "admin"

/** Every scope, in a stable order (areas, then levels). */
export const AllScopes: ReadonlyArray<Scope> = [
  ...ScopeAreas.flatMap((area) => [`${area}:read`, `${area}:write`] as const),
  "admin"
]

/** Schema of {@link Scope}. */
export const Scope = Schema.Literals(AllScopes).annotate({
  identifier: "Scope",
  description: "`<area>:read`, `<area>:write` (includes read) or `admin`"
})

/** Whether `held` lets its holder do what `needed` guards. */
export const grants = (held: ReadonlyArray<Scope>, needed: Scope): boolean => {
  if (held.includes("admin") || held.includes(needed)) return true
  return needed.endsWith(":read") && held.includes(needed.replace(/:read$/, ":write") as Scope)
}

/** The scope of `held` that is missing for `needed`, or `undefined` when it is granted. */
export const missingScope = (held: ReadonlyArray<Scope>, needed: Scope): Scope | undefined =>
  grants(held, needed) ? undefined : needed

/** Roles of signed-in users (local or OIDC), each a fixed set of scopes. */
export const Role = Schema.Literals(["admin", "operator", "viewer"]).annotate({
  identifier: "Role",
  description: "admin: everything; operator: read everything, change all but users; viewer: read everything"
})
export type Role = typeof Role.Type

const readAll = ScopeAreas.map((area) => `${area}:read` as const)

/** The scopes each role grants. Operators run the edge; only admins manage users, API keys and sessions. */
export const scopesOfRole = (role: Role): ReadonlyArray<Scope> => {
  switch (role) {
    case "admin":
      return ["admin"]
    case "operator":
      return [...ScopeAreas.filter((area) => area !== "users").map((area) => `${area}:write` as const), "users:read"]
    case "viewer":
      return readAll
  }
}

// `control` reads naturally for start/stop (`hypervisor:control`), and is what write means for those areas.
const aliases: Readonly<Record<string, ScopeLevel>> = { control: "write" }

const levenshtein = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}

/** One scope from its text form (`routes:read`, `hypervisor:control` = `hypervisor:write`, `admin`). */
export const parseScope = (text: string): { readonly scope: Scope } | { readonly error: string } => {
  const trimmed = text.trim().toLowerCase()
  const [area, level] = trimmed.split(":", 2)
  const normalized = level !== undefined && aliases[level] !== undefined ? `${area}:${aliases[level]}` : trimmed
  if ((AllScopes as ReadonlyArray<string>).includes(normalized)) return { scope: normalized as Scope }
  const closest = [...AllScopes].sort((x, y) => levenshtein(trimmed, x) - levenshtein(trimmed, y))[0]!
  const hint = levenshtein(trimmed, closest) <= 3 ? ` (did you mean "${closest}"?)` : ""
  return {
    error: `unknown scope "${text}"${hint}: scopes are <area>:read or <area>:write for ${ScopeAreas.join(", ")}, or admin`
  }
}

/** A comma-separated list of scopes, without duplicates, or every problem in it. */
export const parseScopeList = (
  text: string
): { readonly scopes: ReadonlyArray<Scope> } | { readonly errors: ReadonlyArray<string> } => {
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
  const parsed = parts.map(parseScope)
  const errors = parsed.flatMap((result) => ("error" in result ? [result.error] : []))
  if (parts.length === 0) return { errors: ["no scope given"] }
  if (errors.length > 0) return { errors }
  return { scopes: [...new Set(parsed.map((result) => ("scope" in result ? result.scope : "admin")))] }
}
