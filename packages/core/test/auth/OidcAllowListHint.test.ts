import { assert, describe, it } from "@effect/vitest"
import { oidcRoleOf } from "../../src/auth/LoginLive.js"
import { allowListHint } from "../../src/auth/OidcAllowListHint.js"
import type { OidcConfig } from "../../src/config/ConfigSections.js"

const oidc: OidcConfig = {
  issuer: "https://idp.example",
  clientId: "gatehouse",
  clientSecret: undefined,
  scopes: ["openid"],
  allowedUsers: ["carol", "dave@example.org"],
  allowedGroups: [],
  allowAnyUser: false,
  groupsClaim: "groups",
  roles: { admin: [], operator: [], viewer: [] },
  defaultRole: "admin"
}

describe("allowListHint", () => {
  it("says to list the verified email or the sub when allowed_users names a refused user by preferred_username", () => {
    const claims = { sub: "u-7f3a", preferred_username: "carol" }
    assert.isUndefined(oidcRoleOf(oidc, claims), "the hint admits nobody")
    assert.strictEqual(
      allowListHint(oidc, claims),
      'allowed_users lists their preferred_username "carol", which admits nobody (users may choose it): list their ' +
        'verified email or their subject id (sub) "u-7f3a" instead'
    )
  })

  it("says so for an email the provider does not vouch for, and never for a verified one", () => {
    for (const unverified of [{}, { email_verified: false }, { email_verified: "true" }]) {
      const claims = { sub: "u-9", email: "dave@example.org", ...unverified }
      assert.isUndefined(oidcRoleOf(oidc, claims))
      assert.strictEqual(
        allowListHint(oidc, claims),
        'allowed_users lists their email "dave@example.org", which the provider does not say is verified: list ' +
          'their verified email or their subject id (sub) "u-9" instead'
      )
    }
    assert.isUndefined(allowListHint(oidc, { sub: "u-9", email: "dave@example.org", email_verified: true }))
  })

  it("has nothing to say about a user the list does not name at all", () => {
    assert.isUndefined(allowListHint(oidc, { sub: "u-1", preferred_username: "eve", email: "eve@example.org" }))
    assert.isUndefined(allowListHint(oidc, { sub: "u-1" }))
  })
})
