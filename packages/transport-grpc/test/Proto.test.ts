import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { requireTool } from "../../../test/support/e2e.js"
import { makeAuthServiceClient } from "../src/client.js"
import type { AuthServiceHandlers } from "../src/index.js"
import { loadGatehouseProto, protoDir, protoFiles } from "../src/index.js"

const packageDir = fileURLToPath(new URL("..", import.meta.url))

describe("gatehouse.v1 protos", () => {
  it("define AuthService with every RPC of the spec", () => {
    const service = loadGatehouseProto().gatehouse.v1.AuthService.service
    assert.deepStrictEqual(Object.keys(service).sort(), [
      "AuthApprove",
      "AuthRegister",
      "AuthReject",
      "CreateAuthRequest",
      "CreateUser",
      "GetAuthRequest",
      "ListAuthRequests",
      "ListNodes",
      "ListUsers",
      "WatchAuthRequest"
    ])
    assert.strictEqual(service.AuthRegister.path, "/gatehouse.v1.AuthService/AuthRegister")
    assert.isTrue(service.WatchAuthRequest.responseStream)
    assert.isFalse(service.AuthApprove.responseStream)
  })

  it("checked-in generated types match the protos", () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-gen-"))
    try {
      const bin = path.join(packageDir, "../../node_modules/.bin/proto-loader-gen-types")
      const result = spawnSync(
        bin,
        [
          "--longs=String",
          "--enums=String",
          "--defaults",
          "--oneofs",
          "--grpcLib=@grpc/grpc-js",
          "--importFileExtension=.js",
          "--includeDirs=proto",
          `--outDir=${out}`,
          // auth.proto imports node.proto: its types are generated too, without an unused node.ts index.
          "gatehouse/v1/auth.proto"
        ],
        // Same arguments and working directory as `npm run codegen`, so the file headers match.
        { encoding: "utf8", cwd: packageDir }
      )
      assert.strictEqual(result.status, 0, result.stderr)
      const list = (dir: string): Array<string> =>
        fs
          .readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
          .sort()
      const generated = path.join(packageDir, "src/gen")
      assert.deepStrictEqual(list(generated), list(out))
      for (const file of list(out)) {
        assert.strictEqual(
          fs.readFileSync(path.join(generated, file), "utf8"),
          fs.readFileSync(path.join(out, file), "utf8"),
          `src/gen/${file} is stale: run npm run codegen`
        )
      }
    } finally {
      fs.rmSync(out, { recursive: true, force: true })
    }
  })

  const protoc = requireTool("protoc")
  it.skipIf(protoc.skip)("compile with protoc (the contract any gRPC client uses)", () => {
    const result = spawnSync(
      "protoc",
      [`-I${protoDir}`, "-I/usr/include", "--include_imports", "-o/dev/null", ...protoFiles],
      {
        encoding: "utf8"
      }
    )
    assert.strictEqual(result.status, 0, result.stderr)
  })

  it("serve and call over grpc-js on loopback, with the API key in the metadata", async () => {
    const proto = loadGatehouseProto()
    const server = new grpc.Server()
    const seen: Array<string | undefined> = []
    const handlers: Partial<AuthServiceHandlers> = {
      ListUsers: (call, callback) => {
        seen.push(call.metadata.get("authorization")[0]?.toString())
        callback(null, { users: [{ id: "1", name: "alice", displayName: "Alice", email: "a@example.test" }] })
      }
    }
    server.addService(proto.gatehouse.v1.AuthService.service, handlers as grpc.UntypedServiceImplementation)
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, p) =>
        error ? reject(error) : resolve(p)
      )
    )
    const client = makeAuthServiceClient({ address: `127.0.0.1:${port}`, apiKey: "gh_abcdefgh_secret", insecure: true })
    try {
      const response = await new Promise<unknown>((resolve, reject) =>
        client.ListUsers({}, (error, value) => (error ? reject(error) : resolve(value)))
      )
      assert.deepStrictEqual(
        (response as { users: Array<{ name: string }> }).users.map((u) => u.name),
        ["alice"]
      )
      assert.deepStrictEqual(seen, ["Bearer gh_abcdefgh_secret"])
    } finally {
      client.close()
      server.forceShutdown()
    }
  })
})
