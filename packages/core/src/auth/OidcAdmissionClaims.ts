import type { OidcConfig } from "../config/ConfigSections.js"
import type { OidcClaims } from "./OidcClient.js"

/**
 * What an OpenID Connect session keeps of its sign-in's claims, to be admitted again at each use under the
 * configuration the server runs with then (`LoginLive.oidcRoleOf` reads them): the issuer, `sub`, the email only
 * when the provider vouched for it, and the groups claim under its own name. Nothing else: the rest is personal
 * data the decision does not read.
 */
export const admissionClaimsOf = (oidc: Pick<OidcConfig, "groupsClaim">, claims: OidcClaims): OidcClaims => {
  const kept: Record<string, unknown> = { iss: claims.iss, sub: claims.sub }
  if (claims.email_verified === true) {
    kept.email = claims.email
    kept.email_verified = true
  }
  if (claims[oidc.groupsClaim] !== undefined) kept[oidc.groupsClaim] = claims[oidc.groupsClaim]
  return kept
}

const normalized = (url: string) => (URL.canParse(url) ? new URL(url).href : url)

/**
 * Whether stored claims come from the configured provider: `sub` is unique only within its issuer, so a session
 * from another provider (the config now names a different one) proves nothing about anybody here.
 */
export const issuedBy = (claims: OidcClaims, issuer: string): boolean =>
  typeof claims.iss === "string" && normalized(claims.iss) === normalized(issuer)
