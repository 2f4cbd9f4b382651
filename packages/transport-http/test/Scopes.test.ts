import { describe, expect, it } from "@effect/vitest"
import { Authorization, GatehouseApi, requiredScopeOf } from "@gatehouse-edge/contract/api"
import { openApiDocument } from "../src/OpenApiDocument.js"

const endpoints = Object.values(GatehouseApi.groups).flatMap((group) =>
  Object.entries(group.endpoints).map(([name, endpoint]) => ({
    id: `${group.identifier}.${name}`,
    protected: endpoint.middlewares.has(Authorization),
    scope: requiredScopeOf(endpoint.annotations)
  }))
)

describe("scopes in the contract", () => {
  it("every endpoint behind authorization declares the scope it needs; public ones are the documented few", () => {
    expect(endpoints.filter((e) => e.protected && e.scope === undefined).map((e) => e.id)).toEqual([])
    expect(endpoints.filter((e) => !e.protected).map((e) => e.id)).toEqual([
      "system.version",
      "system.openapiJson",
      "system.openapiYaml",
      "login.start",
      "login.login",
      "login.callback",
      "login.logout",
      "login.logoutJson"
    ])
  })

  it("reads are read scopes, changes write scopes, and key and session management is for admins", () => {
    const scopeOf = Object.fromEntries(endpoints.map((e) => [e.id, e.scope]))
    expect(scopeOf["routes.list"]).toBe("routes:read")
    expect(scopeOf["routes.validate"]).toBe("routes:read")
    expect(scopeOf["files.write"]).toBe("files:write")
    expect(scopeOf["authRequests.approve"]).toBe("auth_requests:write")
    expect(scopeOf["authRequests.reject"]).toBe("auth_requests:write")
    expect(scopeOf["authRequests.register"]).toBe("auth_requests:write")
    // The SSH gate's key creates and reads requests and must never decide them.
    expect(scopeOf["authRequests.create"]).toBe("auth_requests:create")
    expect(scopeOf["authRequests.get"]).toBe("auth_requests:read")
    expect(scopeOf["authRequests.list"]).toBe("auth_requests:read")
    expect(scopeOf["hypervisor.lxc"]).toBe("hypervisor:write")
    expect(scopeOf["docker.act"]).toBe("docker:write")
    expect(scopeOf["access.createApiKey"]).toBe("admin")
    expect(scopeOf["access.revokeSession"]).toBe("admin")
    expect(scopeOf["access.whoami"]).toBe("authenticated")
  })

  it("the OpenAPI document shows each operation's scope", () => {
    const spec = openApiDocument() as { paths: Record<string, Record<string, Record<string, unknown>>> }
    const routes = spec.paths["/api/v1/route/list"]!.get!
    expect(routes["x-required-scope"]).toBe("routes:read")
    expect(routes.security).toEqual([{ bearer: ["routes:read"] }, { session: ["routes:read"] }])
    expect(spec.paths["/api/v1/version"]!.get!["x-required-scope"]).toBeUndefined()
    const createRequest = spec.paths["/api/v1/auth/requests"]!.post!
    expect(createRequest["x-required-scope"]).toBe("auth_requests:create")
    expect(createRequest.security).toEqual([
      { bearer: ["auth_requests:create"] },
      { session: ["auth_requests:create"] }
    ])
    const withoutScope = Object.values(spec.paths).flatMap((operations) =>
      Object.values(operations).filter(
        (op) => Array.isArray(op.security) && op.security.length > 0 && op["x-required-scope"] === undefined
      )
    )
    expect(withoutScope).toEqual([])
  })
})
