import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli, spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { makeTestCa } from "../../../test/support/TestCa.js"

// The gRPC API over TLS, as the CLI reaches it. grpc-js takes the roots it trusts by default from
// GRPC_DEFAULT_SSL_ROOTS_FILE_PATH when set: here that file is the test CA, standing in for the system's CAs.
describe("the gRPC API over TLS", () => {
  it.live(
    "the CLI uses TLS with --ca, with --tls, or when the config sets grpc.tls; plaintext gets no answer from it",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-grpc-tls-")
        const ca = makeTestCa(dir)
        const data = path.join(dir, "data")
        const config = path.join(dir, "gatehouse.yaml")
        fs.writeFileSync(config, `grpc:\n  tls: { cert: ${ca.serverCert}, key: ${ca.serverKey} }\n`)
        const server = yield* spawnServer(["--config", config, "--data", data, "--http", "127.0.0.1:0"], { cwd: dir })
        const systemRoots = { GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: ca.ca }
        const list = (flags: ReadonlyArray<string>, env: Record<string, string> = {}) =>
          runCli(["auth", "list", "--json", "--data", data, "--grpc", server.grpcAddress, ...flags], { cwd: dir, env })

        const withCa = yield* list(["--ca", ca.ca])
        assert.strictEqual(withCa.code, 0, withCa.stderr)
        assert.deepStrictEqual(JSON.parse(withCa.stdout), [])
        const withTls = yield* list(["--tls"], systemRoots)
        assert.strictEqual(withTls.code, 0, withTls.stderr)
        const fromConfig = yield* list(["--config", config], systemRoots)
        assert.strictEqual(fromConfig.code, 0, fromConfig.stderr)

        // A certificate the client does not trust, and a plaintext call, are refused with the address.
        const untrusted = yield* list(["--tls"])
        assert.strictEqual(untrusted.code, 1)
        assert.include(untrusted.stderr, `gatehouse: cannot reach the gRPC API at ${server.grpcAddress}`)
        const plaintext = yield* list([], systemRoots)
        assert.strictEqual(plaintext.code, 1)
        assert.include(plaintext.stderr, `gatehouse: cannot reach the gRPC API at ${server.grpcAddress}`)
      }),
    60_000
  )
})
