import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { requirePythonGrpc, requireTool } from "../../../test/support/e2e.js"
import { GrpcServerAddress } from "../src/index.js"
import { grpcServerLayer } from "./support/GrpcHarness.js"

const protoc = requireTool("protoc")
const python = requirePythonGrpc()
const script = path.join(import.meta.dirname, "python", "reflection_client.py")
const reflectionProtoDir = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json")),
  "build/proto/grpc/reflection/v1"
)

// Another stack reads the reflection answers: grpcio's C core speaks the protocol, protobuf's C++ DescriptorPool links.
describe.skipIf(protoc.skip || python.skip)("a Python grpcio reflection client", () => {
  it.live(
    "links every service's files and finds the types, as grpcurl would",
    () =>
      Effect.gen(function* () {
        const generated = yield* Effect.acquireRelease(
          Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-py-reflection-"))),
          (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
        )
        // As a top-level reflection_pb2: a grpc/ package of its own would hide grpcio's.
        const compiled = spawnSync(
          "protoc",
          [`-I${reflectionProtoDir}`, `--python_out=${generated}`, "reflection.proto"],
          {
            encoding: "utf8"
          }
        )
        assert.strictEqual(compiled.status, 0, compiled.stderr)
        const address = yield* GrpcServerAddress
        // Asynchronous: the server runs in this process and must keep answering while Python asks it.
        const result = yield* Effect.callback<{ status: number | null; stdout: string; stderr: string }>((resume) => {
          const child = spawn("/usr/bin/python3", [script, generated, `127.0.0.1:${address.port}`])
          let stdout = ""
          let stderr = ""
          child.stdout.on("data", (chunk: Buffer) => {
            stdout += chunk
          })
          child.stderr.on("data", (chunk: Buffer) => {
            stderr += chunk
          })
          child.on("close", (status: number | null) => resume(Effect.succeed({ status, stdout, stderr })))
        })
        assert.strictEqual(result.status, 0, result.stderr)
        assert.deepStrictEqual(JSON.parse(result.stdout), {
          services: [
            "gatehouse.v1.AuthService",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"
          ],
          files: [
            "gatehouse/v1/auth.proto",
            "gatehouse/v1/node.proto",
            "gatehouse/v1/options.proto",
            "google/protobuf/descriptor.proto",
            "google/protobuf/timestamp.proto",
            "grpc/health/v1/health.proto",
            "grpc/reflection/v1/reflection.proto",
            "grpc/reflection/v1alpha/reflection.proto"
          ],
          create: ["gatehouse.v1.CreateAuthRequestRequest", "gatehouse.v1.CreateAuthRequestResponse"],
          watch: ["gatehouse.v1.WatchAuthRequestRequest", "gatehouse.v1.AuthRequest"],
          health_check: ["grpc.health.v1.HealthCheckRequest", "grpc.health.v1.HealthCheckResponse"],
          created_at: "google.protobuf.Timestamp",
          kind: "gatehouse.v1.AuthRequestKind",
          required_scope: "google.protobuf.MethodOptions"
        })
      }).pipe(Effect.scoped, Effect.provide(grpcServerLayer())),
    60_000
  )
})
