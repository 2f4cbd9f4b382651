import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import {
  AllScopes,
  grants,
  isChangeScope,
  missingScope,
  parseScope,
  parseScopeList,
  type Scope,
  Scope as ScopeSchema,
  scopesOfRole
} from "../../src/domain/Scope.js"

describe("scopes", () => {
  it("write includes read of the same area, admin includes everything, nothing else is implied", () => {
    assert.isTrue(grants(["routes:read"], "routes:read"))
    assert.isTrue(grants(["routes:write"], "routes:read"))
    assert.isFalse(grants(["routes:read"], "routes:write"))
    assert.isFalse(grants(["routes:write"], "files:read"))
    assert.isFalse(grants([], "health:read"))
    for (const scope of AllScopes) assert.isTrue(grants(["admin"], scope), scope)
    assert.isFalse(grants(["routes:write", "files:write"], "admin"))
    assert.strictEqual(missingScope(["docker:read"], "docker:write"), "docker:write")
    assert.isUndefined(missingScope(["docker:write"], "docker:read"))
  })

  it("auth_requests: write includes create, which includes read; create never decides", () => {
    assert.deepStrictEqual(
      AllScopes.filter((s) => s.startsWith("auth_requests:")),
      ["auth_requests:read", "auth_requests:create", "auth_requests:write"]
    )
    // The SSH gate's key: creates and reads (get, list, watch), never approves, rejects or registers.
    assert.isTrue(grants(["auth_requests:create"], "auth_requests:create"))
    assert.isTrue(grants(["auth_requests:create"], "auth_requests:read"))
    assert.isFalse(grants(["auth_requests:create"], "auth_requests:write"))
    assert.strictEqual(missingScope(["auth_requests:create"], "auth_requests:write"), "auth_requests:write")
    // Keys stored with write before create existed keep creating.
    assert.isTrue(grants(["auth_requests:write"], "auth_requests:create"))
    assert.isTrue(grants(["auth_requests:write"], "auth_requests:read"))
    assert.isTrue(grants(["admin"], "auth_requests:create"))
    assert.isFalse(grants(["auth_requests:read"], "auth_requests:create"))
    // Only within its area.
    assert.isFalse(grants(["auth_requests:create"], "users:read"))
    assert.isFalse(grants(["users:write", "routes:write"], "auth_requests:create"))
    assert.isFalse(grants(["auth_requests:create"], "admin"))
    // A scope name the server no longer knows (an old store row) grants nothing.
    assert.isFalse(grants(["auth_requests:approve" as Scope], "auth_requests:read"))
    assert.isTrue(isChangeScope("auth_requests:create"))
    assert.isTrue(isChangeScope("auth_requests:write"))
    assert.isFalse(isChangeScope("auth_requests:read"))
    assert.isFalse(isChangeScope("admin"))
  })

  it("parses auth_requests:create; no other area has a create level, and the error says which has", () => {
    assert.deepStrictEqual(parseScope("auth_requests:create"), { scope: "auth_requests:create" })
    assert.deepStrictEqual(parseScope(" Auth_Requests:CREATE "), { scope: "auth_requests:create" })
    assert.deepStrictEqual(Schema.decodeUnknownSync(ScopeSchema)("auth_requests:create"), "auth_requests:create")
    const typo = parseScope("auth_requests:creat")
    assert.isTrue("error" in typo && typo.error.includes('did you mean "auth_requests:create"'), JSON.stringify(typo))
    const routes = parseScope("routes:create")
    assert.isTrue("error" in routes, JSON.stringify(routes))
    assert.include(
      "error" in routes ? routes.error : "",
      "<area>:create (create and read, never decide) for auth_requests"
    )
    assert.deepStrictEqual(parseScopeList("auth_requests:create"), { scopes: ["auth_requests:create"] })
  })

  it("parses scopes, takes control as write, and names what is wrong with a hint", () => {
    assert.deepStrictEqual(parseScope("routes:read"), { scope: "routes:read" })
    assert.deepStrictEqual(parseScope(" Hypervisor:Control "), { scope: "hypervisor:write" })
    assert.deepStrictEqual(parseScope("admin"), { scope: "admin" })
    const typo = parseScope("routs:read")
    assert.isTrue("error" in typo && typo.error.includes('did you mean "routes:read"'), JSON.stringify(typo))
    const unknown = parseScope("everything")
    assert.isTrue("error" in unknown && !unknown.error.includes("did you mean"), JSON.stringify(unknown))
    assert.deepStrictEqual(parseScopeList("routes:read, hypervisor:control,routes:read"), {
      scopes: ["routes:read", "hypervisor:write"]
    })
    const bad = parseScopeList("routes:read,docker:delete,nope")
    assert.isTrue("errors" in bad && bad.errors.length === 2, JSON.stringify(bad))
    assert.deepStrictEqual(parseScopeList(" , "), { errors: ["no scope given"] })
  })

  it("roles: viewers read everything, operators change all but users, admins do anything", () => {
    const viewer = scopesOfRole("viewer")
    const operator = scopesOfRole("operator")
    const every = AllScopes.filter((s): s is Exclude<Scope, "admin"> => s !== "admin")
    for (const scope of every.filter((s) => s.endsWith(":read"))) {
      assert.isTrue(grants(viewer, scope), `viewer ${scope}`)
      assert.isTrue(grants(operator, scope), `operator ${scope}`)
    }
    for (const scope of every.filter((s) => !s.endsWith(":read"))) {
      assert.isFalse(grants(viewer, scope), `viewer ${scope}`)
      assert.strictEqual(grants(operator, scope), scope !== "users:write", `operator ${scope}`)
    }
    assert.isTrue(grants(operator, "auth_requests:create"))
    assert.isFalse(grants(operator, "admin"))
    assert.deepStrictEqual(scopesOfRole("admin"), ["admin"])
  })
})
