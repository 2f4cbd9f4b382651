import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  ApiError,
  ErrorBody,
  grpcStatusOf,
  HypervisorNotConfigured,
  httpStatusOf,
  InternalError,
  InvalidArgument,
  InvalidYaml,
  OidcProviderFailed,
  ProxmoxUnreachable,
  RouteNotFound,
  SshNotConfigured,
  toWireError,
  Unauthenticated,
  ValidationFailed,
  wireMessageOf
} from "../../src/domain/index.js"

describe("ApiError wire form", () => {
  it("renders a typed error as the shared ErrorBody and decodes it back", () => {
    const wire = toWireError(RouteNotFound)
    const encoded = Schema.encodeSync(wire)(new RouteNotFound({ alias: "app" }))
    assert.deepStrictEqual(encoded, {
      error: {
        code: "not_found",
        message: 'route "app" not found',
        details: [{ reason: "RouteNotFound", alias: "app" }]
      }
    })
    assert.isTrue(Schema.is(ErrorBody)(encoded))
    const decoded = Schema.decodeUnknownSync(wire)(encoded)
    assert.instanceOf(decoded, RouteNotFound)
    assert.strictEqual(decoded.alias, "app")
    assert.strictEqual(decoded.message, 'route "app" not found')
  })

  it("puts validation issues in details as they are", () => {
    const issues = [{ path: ["app", "port"], message: "port out of range", line: 3, column: 9 }]
    const encoded = Schema.encodeSync(toWireError(ValidationFailed))(new ValidationFailed({ issues }))
    assert.deepStrictEqual(encoded.error.details, issues)
    assert.strictEqual(encoded.error.code, "validation_failed")
    assert.strictEqual(encoded.error.message, "validation failed: port out of range")
  })

  it("tells errors of one status apart by code and reason", () => {
    const union = Schema.Union([toWireError(RouteNotFound), toWireError(InvalidArgument)])
    const bad = Schema.decodeUnknownSync(union)({ error: { code: "invalid_argument", message: "limit: too big" } })
    assert.instanceOf(bad, InvalidArgument)
    assert.deepStrictEqual(bad.issues, [])
    assert.throws(() =>
      Schema.decodeUnknownSync(toWireError(RouteNotFound))({ error: { code: "not_found", message: "x" } })
    )
  })

  it("never decodes another error's body as an error without fields of the same code", () => {
    // The hypervisor endpoints declare four 503s; the one without fields comes first.
    const union = Schema.Union([
      toWireError(HypervisorNotConfigured),
      toWireError(ProxmoxUnreachable),
      toWireError(SshNotConfigured)
    ])
    const roundTrip = <E>(error: E, wire: Schema.Codec<E, unknown>) =>
      Schema.decodeUnknownSync(union)(Schema.encodeSync(wire)(error))
    const unreachable = roundTrip(
      new ProxmoxUnreachable({ cluster: "sim", detail: "connect ECONNREFUSED" }),
      toWireError(ProxmoxUnreachable)
    )
    assert.instanceOf(unreachable, ProxmoxUnreachable)
    assert.strictEqual(unreachable.cluster, "sim")
    const noSsh = roundTrip(new SshNotConfigured({ node: "pve1" }), toWireError(SshNotConfigured))
    assert.instanceOf(noSsh, SshNotConfigured)
    assert.strictEqual(noSsh.node, "pve1")
    // Its own body, and a bare body of its code (no details), are still its.
    assert.instanceOf(
      roundTrip(new HypervisorNotConfigured(), toWireError(HypervisorNotConfigured)),
      HypervisorNotConfigured
    )
    assert.instanceOf(
      Schema.decodeUnknownSync(union)({ error: { code: "unavailable", message: "unavailable" } }),
      HypervisorNotConfigured
    )
    // An error whose only field is its message is known the same way.
    assert.throws(() =>
      Schema.decodeUnknownSync(toWireError(Unauthenticated))({
        error: { code: "unauthenticated", message: "x", details: [{ reason: "SessionExpired" }] }
      })
    )
  })

  it("wireMessageOf gives the body's message: an error's description, not its bare message field", () => {
    const failed = new OidcProviderFailed({ issuer: "https://idp.example.com", message: "discovery failed" })
    assert.strictEqual(failed.message, "discovery failed")
    assert.strictEqual(wireMessageOf(failed), "OpenID provider https://idp.example.com: discovery failed")
    assert.strictEqual(wireMessageOf(new RouteNotFound({ alias: "app" })), new RouteNotFound({ alias: "app" }).message)
    assert.strictEqual(wireMessageOf(new Error("plain")), "plain")
  })

  it("never puts internals in a 500 body", () => {
    const encoded = Schema.encodeSync(toWireError(InternalError))(new InternalError({ request_id: "r-1" }))
    assert.strictEqual(encoded.error.message, "internal error")
  })

  it("maps codes to HTTP and gRPC statuses from one table", () => {
    assert.strictEqual(httpStatusOf("validation_failed"), 422)
    assert.strictEqual(httpStatusOf("not_found"), 404)
    assert.strictEqual(grpcStatusOf("not_found"), 5)
    assert.strictEqual(grpcStatusOf("failed_precondition"), 9)
  })
})

describe("ApiError definitions", () => {
  it("refuses a field called `reason`, which would hide the error's name in its body", () => {
    assert.throws(
      () => ApiError()("Clash", { code: "conflict", fields: { reason: Schema.String }, message: () => "x" }),
      /may not be called "reason"/
    )
  })

  it("gives YAML syntax errors their own code, so they never pass for a bad parameter", () => {
    const union = Schema.Union([toWireError(InvalidYaml), toWireError(InvalidArgument)])
    const decoded = Schema.decodeUnknownSync(union)({
      error: { code: "invalid_argument", message: "invalid request: x: unknown parameter", details: [] }
    })
    assert.instanceOf(decoded, InvalidArgument)
  })
})
