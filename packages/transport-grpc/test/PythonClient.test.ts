import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { requirePythonGrpc, requireTool } from "../../../test/support/e2e.js"
import { GrpcServerAddress, protoDir, protoFiles } from "../src/index.js"
import { grpcServerLayer, keys } from "./support/GrpcHarness.js"

const protoc = requireTool("protoc")
const python = requirePythonGrpc()
const script = path.join(import.meta.dirname, "python", "auth_client.py")

// The wire-level check by an independent stack: protoc compiles the same .proto files for Python, and grpcio (a C
// core, not grpc-js) calls the server, streaming Watch included.
describe.skipIf(protoc.skip || python.skip)("a Python grpcio client", () => {
  it.live(
    "creates, watches, approves and gets a request, and sees the documented status codes",
    () =>
      Effect.gen(function* () {
        const generated = yield* Effect.acquireRelease(
          Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-py-"))),
          (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
        )
        const compiled = spawnSync(
          "protoc",
          [`-I${protoDir}`, "-I/usr/include", `--python_out=${generated}`, ...protoFiles],
          { encoding: "utf8" }
        )
        assert.strictEqual(compiled.status, 0, compiled.stderr)
        const address = yield* GrpcServerAddress
        // Asynchronous: the server runs in this process and must keep answering while Python calls it.
        const result = yield* Effect.callback<{ status: number | null; stdout: string; stderr: string }>((resume) => {
          const child = spawn("/usr/bin/python3", [script, generated, `127.0.0.1:${address.port}`, keys.valid.key])
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
        const seen = JSON.parse(result.stdout)
        assert.match(seen.auth_id, /^ghreq_[A-Za-z0-9_-]{24}$/)
        // Which error it was, from the trailers, as an HTTP error body says it.
        assert.deepStrictEqual(seen.reject_after_error, {
          code: "failed_precondition",
          details: [{ reason: "AuthRequestAlreadyDecided", auth_id: seen.auth_id, state: "approved" }]
        })
        assert.deepStrictEqual(
          { ...seen, auth_id: "", reject_after_error: undefined },
          {
            auth_id: "",
            created_state: "AUTH_REQUEST_STATE_PENDING",
            created_kind: "AUTH_REQUEST_KIND_SSH_CHECK",
            ttl_s: 900,
            watch: ["AUTH_REQUEST_STATE_PENDING", "AUTH_REQUEST_STATE_APPROVED"],
            decided_by: "api-key:valid",
            ssh_check: ["127.0.0.1", "python", "root"],
            approve_again: ["OK", ""],
            reject_after: ["FAILED_PRECONDITION", "auth request already approved"],
            malformed: ["INVALID_ARGUMENT", "auth_id: auth_id must be ghreq_ followed by 24 characters"],
            unknown: ["NOT_FOUND", `auth request ghreq_${"z".repeat(24)} not found`],
            register_empty_user: ["INVALID_ARGUMENT", "user: user is required"],
            no_key: ["UNAUTHENTICATED", "missing API key: send authorization: Bearer <key> metadata"],
            reject_after_error: undefined
          }
        )
      }).pipe(Effect.scoped, Effect.provide(grpcServerLayer())),
    60_000
  )
})
