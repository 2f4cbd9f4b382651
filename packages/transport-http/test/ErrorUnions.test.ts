import { describe, expect, it } from "@effect/vitest"
import { GatehouseApi } from "@gatehouse-edge/contract/api"
import * as Domain from "@gatehouse-edge/core/domain"

// The client decodes an error body by trying the endpoint's declared errors in order. Bodies of errors with fields
// name their error in `details` ({"reason": "<Tag>", ...}); an error without fields, or one whose details are a
// list of issues, is known by its code alone. Two of those under one code in one endpoint could not be told apart.

const errorClasses = (Object.values(Domain) as ReadonlyArray<unknown>).filter(
  (value): value is Domain.ApiErrorClass => typeof value === "function" && "apiError" in value
)
// An endpoint's error schemas are copies of `toWireError(X)`; their description ("<Tag> (<code>)") is X's.
const classByDescription = new Map(
  errorClasses.map((cls) => [Domain.toWireError(cls).ast.annotations?.description, cls] as const)
)
const namesItself = (cls: Domain.ApiErrorClass) =>
  cls.apiError.details
    .toDetails({})
    ?.some((d) => typeof d === "object" && d !== null && (d as { reason?: unknown }).reason === cls.apiError.tag) ===
  true

const endpoints = Object.values(GatehouseApi.groups).flatMap((group) =>
  Object.entries(group.endpoints).map(([name, endpoint]) => ({
    id: `${group.identifier}.${name}`,
    errors: [...endpoint.error].map((schema) => ({
      description: schema.ast.annotations?.description,
      cls: classByDescription.get(schema.ast.annotations?.description)
    }))
  }))
)

describe("declared errors of each endpoint", () => {
  it("are all Gatehouse errors, each found by its wire schema", () => {
    const declared = endpoints.flatMap((e) => e.errors.map((error) => ({ id: e.id, ...error })))
    expect(declared.length).toBeGreaterThan(100)
    expect(declared.filter((d) => d.cls === undefined).map((d) => `${d.id}: ${String(d.description)}`)).toEqual([])
  })

  it("can be told apart: under one code, at most one error whose body does not name it", () => {
    const ambiguous = endpoints.flatMap(({ id, errors }) => {
      const unnamedByCode = new Map<string, Array<string>>()
      for (const { cls } of errors) {
        if (cls === undefined || namesItself(cls)) continue
        const { code, tag } = cls.apiError
        unnamedByCode.set(code, [...(unnamedByCode.get(code) ?? []), tag])
      }
      return [...unnamedByCode].filter(([, tags]) => tags.length > 1).map(([code, tags]) => `${id} ${code}: ${tags}`)
    })
    expect(ambiguous).toEqual([])
  })

  it("include errors of one code that only the body's details tell apart (so the walk above means something)", () => {
    const hypervisorJournal = endpoints.find((e) => e.id === "hypervisor.journal")!
    const unavailable = hypervisorJournal.errors
      .map((e) => e.cls!)
      .filter((cls) => cls.apiError.code === "unavailable")
      .map((cls) => cls.apiError.tag)
    expect(unavailable).toEqual(["HypervisorNotConfigured", "ProxmoxUnreachable", "SshNotConfigured", "SshUnreachable"])
  })
})
