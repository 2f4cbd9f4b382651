import type { IssuePath } from "./IssueCollector.js"

// Named secrets, plus any key that says what kind of secret it holds (`api_token`, `root_password`). `*_file`,
// `*_id` and `host_key` are not secrets: a path to a secret, an identifier, a public key.
const SECRET_NAMES = new Set(["secret", "password", "client_secret", "password_hash", "token"])
const SECRET_SUFFIX = /_(secret|password|token)$/

/** Whether a map key holds a secret (`secret`, `password`, `client_secret`, `*_token`, ...): its value is never quoted. */
export const isSecretKey = (key: PropertyKey): boolean =>
  typeof key === "string" && (SECRET_NAMES.has(key) || SECRET_SUFFIX.test(key))

/** Whether a path goes through a secret key (the secret itself, or a part of a secret written as a list or map). */
export const isSecretPath = (path: IssuePath): boolean => path.some(isSecretKey)

/**
 * Whether a value has a secret key anywhere inside it: a mapping written where a string was expected may carry
 * a secret (`oidc: [{ client_secret: ... }]`), so it is not quoted either. Parsed YAML has no cycles (the parser
 * refuses alias cycles) and bounded depth, so the walk ends.
 */
export const containsSecretKey = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.some(containsSecretKey)
  if (typeof value !== "object" || value === null) return false
  return Object.entries(value).some(([key, inner]) => isSecretKey(key) || containsSecretKey(inner))
}
