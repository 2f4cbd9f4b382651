import { assert, describe, it } from "@effect/vitest"
import {
  AllScopes,
  grants,
  missingScope,
  parseScope,
  parseScopeList,
  type Scope,
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
    for (const scope of every.filter((s) => s.endsWith(":write"))) {
      assert.isFalse(grants(viewer, scope), `viewer ${scope}`)
      assert.strictEqual(grants(operator, scope), scope !== "users:write", `operator ${scope}`)
    }
    assert.isFalse(grants(operator, "admin"))
    assert.deepStrictEqual(scopesOfRole("admin"), ["admin"])
  })
})
