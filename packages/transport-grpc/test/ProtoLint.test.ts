import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import protobuf from "protobufjs"
import { protoDir, protoFiles } from "../src/index.js"

// The lint rules of `buf lint`'s DEFAULT set that apply to these files, checked on the parsed protos, plus the
// exact field numbers of SPEC §12: the protos are the contract every gRPC client in any language compiles.
const root = new protobuf.Root()
root.resolvePath = (_origin, target) =>
  target.startsWith("google/protobuf/") ? path.join("/nonexistent", target) : path.join(protoDir, target)
root.loadSync([...protoFiles], { keepCase: true })
const pkg = root.lookup("gatehouse.v1") as protobuf.Namespace
const types = pkg.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type)
const enums = pkg.nestedArray.filter((n): n is protobuf.Enum => n instanceof protobuf.Enum)
const service = root.lookupService("gatehouse.v1.AuthService")

const upperSnake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()

describe("gatehouse.v1 protos follow the lint rules", () => {
  it("package matches the directory (PACKAGE_DIRECTORY_MATCH, PACKAGE_VERSION_SUFFIX)", () => {
    for (const file of protoFiles) assert.strictEqual(path.dirname(file), "gatehouse/v1")
    assert.isAbove(types.length, 10)
  })

  it("enums: UPPER_SNAKE values prefixed by the enum name, zero value *_UNSPECIFIED (ENUM_VALUE_PREFIX, ENUM_ZERO_VALUE_SUFFIX)", () => {
    for (const e of enums) {
      const prefix = `${upperSnake(e.name)}_`
      for (const [name, number] of Object.entries(e.values)) {
        assert.match(name, /^[A-Z][A-Z0-9_]*$/, `${e.name}.${name}`)
        assert.isTrue(name.startsWith(prefix), `${e.name}.${name} lacks the prefix ${prefix}`)
        if (number === 0) assert.strictEqual(name, `${prefix}UNSPECIFIED`)
      }
    }
  })

  it("messages PascalCase, fields lower_snake_case (MESSAGE_PASCAL_CASE, FIELD_LOWER_SNAKE_CASE)", () => {
    for (const type of types) {
      assert.match(type.name, /^[A-Z][A-Za-z0-9]*$/)
      for (const field of type.fieldsArray) assert.match(field.name, /^[a-z][a-z0-9_]*$/, `${type.name}.${field.name}`)
    }
  })

  it("each RPC takes <Rpc>Request and returns <Rpc>Response, except the Watch stream (RPC_REQUEST_STANDARD_NAME)", () => {
    for (const method of service.methodsArray) {
      assert.strictEqual(method.requestType, `${method.name}Request`)
      if (method.name === "WatchAuthRequest") {
        // SPEC §12: the stream carries AuthRequest messages themselves.
        assert.isTrue(method.responseStream)
        assert.strictEqual(method.responseType, "AuthRequest")
      } else {
        assert.strictEqual(method.responseType, `${method.name}Response`)
        assert.isFalse(Boolean(method.responseStream))
      }
    }
  })

  it("fields have exactly the numbers of SPEC §12", () => {
    const numbers = (name: string) =>
      Object.fromEntries((root.lookupType(`gatehouse.v1.${name}`).fieldsArray ?? []).map((f) => [f.name, f.id]))
    assert.deepStrictEqual(numbers("AuthRegisterRequest"), { user: 1, auth_id: 2 })
    assert.deepStrictEqual(numbers("AuthRegisterResponse"), { node: 1 })
    assert.deepStrictEqual(numbers("AuthApproveRequest"), { auth_id: 1 })
    assert.deepStrictEqual(numbers("AuthApproveResponse"), {})
    assert.deepStrictEqual(numbers("AuthRejectRequest"), { auth_id: 1 })
    assert.deepStrictEqual(numbers("AuthRejectResponse"), {})
    assert.deepStrictEqual(numbers("Node"), {
      id: 1,
      machine_key: 2,
      node_key: 3,
      disco_key: 4,
      ip_addresses: 5,
      name: 6,
      user: 7,
      last_seen: 8,
      expiry: 10,
      created_at: 12,
      register_method: 13,
      given_name: 21,
      online: 22,
      tags: 26
    })
    assert.deepStrictEqual(numbers("User"), { id: 1, name: 2, created_at: 3, display_name: 4, email: 5 })
    assert.deepStrictEqual(numbers("AuthRequest"), {
      auth_id: 1,
      kind: 2,
      state: 3,
      created_at: 4,
      expires_at: 5,
      decided_at: 6,
      decided_by: 7,
      user: 8,
      node: 9,
      registration: 10,
      ssh_check: 11
    })
    assert.deepStrictEqual(numbers("Registration"), { machine_key: 1, node_key: 2, hostname: 3 })
    assert.deepStrictEqual(numbers("SshCheck"), { src: 1, dst: 2, local_user: 3 })
    assert.deepStrictEqual(numbers("CreateAuthRequestRequest"), { kind: 1, registration: 2, ssh_check: 3 })
    // SPEC §12 pins state = 1 and kind = 2; paging (AIP-158) and the SSH gate's filters were added after them.
    assert.deepStrictEqual(numbers("ListAuthRequestsRequest"), {
      state: 1,
      kind: 2,
      page_size: 3,
      page_token: 4,
      ssh_check: 5,
      decided_after: 6
    })
    assert.deepStrictEqual(numbers("ListAuthRequestsResponse"), { auth_requests: 1, next_page_token: 2 })
    assert.strictEqual(root.lookupType("gatehouse.v1.ListAuthRequestsRequest").fields.ssh_check!.type, "SshCheck")
    assert.deepStrictEqual(numbers("CreateUserRequest"), { name: 1, display_name: 2, email: 3 })
    assert.deepStrictEqual(numbers("ListNodesRequest"), { user: 1 })
    assert.deepStrictEqual(
      { ...root.lookupEnum("gatehouse.v1.RegisterMethod").values },
      {
        REGISTER_METHOD_UNSPECIFIED: 0,
        REGISTER_METHOD_AUTH_KEY: 1,
        REGISTER_METHOD_CLI: 2,
        REGISTER_METHOD_OIDC: 3
      }
    )
    assert.strictEqual(root.lookupType("gatehouse.v1.Node").fields.user!.type, "User")
    assert.strictEqual(root.lookupType("gatehouse.v1.Node").fields.ip_addresses!.repeated, true)
  })
})
