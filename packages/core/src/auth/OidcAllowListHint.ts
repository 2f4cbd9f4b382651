import type { OidcConfig } from "../config/ConfigSections.js"
import type { OidcClaims } from "./OidcClient.js"

/**
 * What to list instead, when `allowed_users` names a refused user by a claim that admits nobody, or `undefined`.
 * An entry matches only the verified email or the subject id (`sub`); a config that lists user names
 * (`preferred_username`, which users may choose) or an email the provider does not vouch for refuses everyone
 * on it without saying why. The hint admits nobody: the refusal stands, it only says how to fix the list.
 */
export const allowListHint = (oidc: OidcConfig, claims: OidcClaims): string | undefined => {
  const listed = (value: unknown): value is string =>
    typeof value === "string" && value !== "" && oidc.allowedUsers.includes(value)
  const instead = `list their verified email or their subject id (sub) "${String(claims.sub ?? "")}" instead`
  if (listed(claims.preferred_username)) {
    return (
      `allowed_users lists their preferred_username "${claims.preferred_username}", which admits nobody ` +
      `(users may choose it): ${instead}`
    )
  }
  if (claims.email_verified !== true && listed(claims.email)) {
    return `allowed_users lists their email "${claims.email}", which the provider does not say is verified: ${instead}`
  }
  return undefined
}
