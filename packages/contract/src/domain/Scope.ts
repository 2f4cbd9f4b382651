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

/**
 * `read`: look; `create`: add what others then decide (`auth_requests` only); `write`: change or control (start,
 * stop, approve, ...). Each level includes the ones before it in its area: `write` ⊃ `create` ⊃ `read`.
 */
export type ScopeLevel = "read" | "create" | "write"

/**
 * The areas with a `create` level. The SSH check gate creates and watches `ssh_check` requests: a key that may
 * only do that cannot approve the logins it holds, so a stolen gate key lets nobody in.
 */
export const CreateScopeAreas = ["auth_requests"] as const satisfies ReadonlyArray<ScopeArea>

/**
 * What a caller may do: `<area>:read`, `<area>:write` (which includes `<area>:read`), `auth_requests:create`
 * (between the two), or `admin` (everything, including API keys and sessions). API keys carry scopes; sessions get
 * the scopes of their role.
 */
export type Scope = `${ScopeArea}:${"read" | "write"}` | `${(typeof CreateScopeAreas)[number]}:create` | "admin"

const levelsOf = (area: ScopeArea): ReadonlyArray<ScopeLevel> =>
  (CreateScopeAreas as ReadonlyArray<ScopeArea>).includes(area) ? ["read", "create", "write"] : ["read", "write"]

/** Every scope, in a stable order (areas, then levels from the narrowest). */
export const AllScopes: ReadonlyArray<Scope> = [
  ...ScopeAreas.flatMap((area) => levelsOf(area).map((level) => `${area}:${level}` as Scope)),
  "admin"
]

/** Schema of {@link Scope}. */
export const Scope = Schema.Literals(AllScopes).annotate({
  identifier: "Scope",
  description:
    "`<area>:read`, `<area>:write` (includes read), `auth_requests:create` (create `ssh_check` requests and " +
    "read requests, never decide them; included in `auth_requests:write`) or `admin`"
})

// Each scope → every scope it grants: itself and the levels below it in its area; admin grants all. Built once:
// `grants` runs on every request and call.
const granted: ReadonlyMap<string, ReadonlySet<Scope>> = new Map([
  ...ScopeAreas.flatMap((area) => {
    const levels = levelsOf(area).map((level) => `${area}:${level}` as Scope)
    return levels.map((scope, i) => [scope, new Set(levels.slice(0, i + 1))] as const)
  }),
  ["admin", new Set(AllScopes)] as const
])

/** Whether `held` lets its holder do what `needed` guards. */
export const grants = (held: ReadonlyArray<Scope>, needed: Scope): boolean =>
  held.some((scope) => granted.get(scope)?.has(needed) === true)

/** The scope of `held` that is missing for `needed`, or `undefined` when it is granted. */
export const missingScope = (held: ReadonlyArray<Scope>, needed: Scope): Scope | undefined =>
  grants(held, needed) ? undefined : needed

/**
 * Whether what `scope` guards changes something (a level above `read`): a browser's cookie alone must not do that,
 * even in a GET, so such requests carry the CSRF token. Not `admin`: it also guards reads (listing keys and
 * sessions), and its changes are POSTs and DELETEs, which carry the token anyway.
 */
export const isChangeScope = (scope: Scope): boolean => scope !== "admin" && !scope.endsWith(":read")

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

/**
 * One scope from its text form (`routes:read`, `auth_requests:create`, `hypervisor:control` = `hypervisor:write`,
 * `admin`).
 */
export const parseScope = (text: string): { readonly scope: Scope } | { readonly error: string } => {
  const trimmed = text.trim().toLowerCase()
  const [area, level] = trimmed.split(":", 2)
  const normalized = level !== undefined && aliases[level] !== undefined ? `${area}:${aliases[level]}` : trimmed
  if ((AllScopes as ReadonlyArray<string>).includes(normalized)) return { scope: normalized as Scope }
  const closest = [...AllScopes].sort((x, y) => levenshtein(trimmed, x) - levenshtein(trimmed, y))[0]!
  const hint = levenshtein(trimmed, closest) <= 3 ? ` (did you mean "${closest}"?)` : ""
  return {
    error:
      `unknown scope "${text}"${hint}: scopes are <area>:read or <area>:write for ${ScopeAreas.join(", ")}; ` +
      `<area>:create (create and read, never decide) for ${CreateScopeAreas.join(", ")}; or admin`
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
