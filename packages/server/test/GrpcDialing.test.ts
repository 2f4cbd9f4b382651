import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli, spawnServer } from "../../../test/support/Cli.js"
import { freePort } from "../../../test/support/FreePort.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { makeTestCa } from "../../../test/support/TestCa.js"

// Where the gRPC commands call, and what they read to know it: the address of a server that listens on every
// interface, the name its certificate gives, and the local config when the command line already says everything.

// Listening beyond loopback takes authentication (a user; a well-formed hash is enough, nobody signs in).
const someUser = 'auth:\n  users: [{ name: admin, password_hash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA" }]\n'

// A config whose secret comes from the server's environment: loading it anywhere else fails.
const configOfAnotherMachine = [
  "hypervisor:",
  "  clusters:",
  '    - { name: pve, url: "https://10.0.0.1:8006", token_id: "a@pve!b", secret: "${GATEHOUSE_TEST_UNSET_SECRET}" }',
  ""
].join("\n")

describe("the gRPC commands' address", () => {
  it.live(
    "a server listening on 0.0.0.0 is called on 127.0.0.1, which its certificate names; no warning on stderr",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-grpc-dial-")
        const ca = makeTestCa(dir)
        const listen = `0.0.0.0:${yield* freePort}`
        fs.writeFileSync(
          path.join(dir, "gatehouse.yml"),
          `http: { addr: "127.0.0.1:0" }\ngrpc:\n  addr: "${listen}"\n  tls: { cert: ${ca.serverCert}, key: ${ca.serverKey} }\n${someUser}`
        )
        // The test helpers give every process a gRPC address of its own in GATEHOUSE_GRPC_ADDR, which would win over
        // the file's: here it is the file's, so the CLI's config says 0.0.0.0 whichever it reads.
        const env = { GATEHOUSE_GRPC_ADDR: listen }
        yield* spawnServer([], { cwd: dir, env })

        const list = yield* runCli(["auth", "list", "--json", "--ca", ca.ca], { cwd: dir, env })
        assert.strictEqual(list.code, 0, list.stderr)
        assert.deepStrictEqual(JSON.parse(list.stdout), [])
        // Node's DEP0123 (grpc-js sends the IP address as the TLS server name) is not the user's concern.
        assert.strictEqual(list.stderr, "")
      }).pipe(Effect.scoped),
    90_000
  )

  it.live(
    "an address the certificate does not name is refused, with the way to call it by one of its names",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-grpc-dial-")
        const ca = makeTestCa(dir)
        const port = yield* freePort
        fs.writeFileSync(
          path.join(dir, "gatehouse.yml"),
          `http: { addr: "127.0.0.1:0" }\ngrpc:\n  tls: { cert: ${ca.serverCert}, key: ${ca.serverKey} }\n${someUser}`
        )
        // Every interface, so that 127.0.0.2 (loopback, but not in the certificate) reaches it too.
        const server = yield* spawnServer([], { cwd: dir, env: { GATEHOUSE_GRPC_ADDR: `0.0.0.0:${port}` } })
        assert.isDefined(server)

        const list = yield* runCli(["auth", "list", "--ca", ca.ca, "--grpc", `127.0.0.2:${port}`], { cwd: dir })
        assert.strictEqual(list.code, 1)
        const lines = list.stderr.trimEnd().split("\n")
        assert.match(
          lines[0]!,
          new RegExp(`^gatehouse: cannot reach the gRPC API at 127\\.0\\.0\\.2:${port}: .*altnames`)
        )
        assert.strictEqual(
          lines[1],
          `gatehouse: call it by a name in its certificate: --grpc <name in the certificate>:${port}`
        )
      }).pipe(Effect.scoped),
    90_000
  )

  it.live(
    "with the address and the key on the command line, the local config is not read (nor its secrets asked for)",
    () =>
      Effect.gen(function* () {
        const serverDir = yield* tempDir("gatehouse-grpc-server-")
        const data = path.join(serverDir, "data")
        const socket = path.join(data, "g.sock")
        fs.writeFileSync(path.join(serverDir, "gatehouse.yml"), `grpc: { unix_socket: ${socket} }\n`)
        const server = yield* spawnServer(["--data", data, "--http", "127.0.0.1:0"], { cwd: serverDir })

        // An admin's directory that holds another machine's config, and the key they were given.
        const here = yield* tempDir("gatehouse-grpc-admin-")
        fs.writeFileSync(path.join(here, "gatehouse.yml"), configOfAnotherMachine)
        fs.copyFileSync(path.join(data, "admin.key"), path.join(here, "k"))
        const key = fs.readFileSync(path.join(data, "admin.key"), "utf8").trim()

        const withKeyFile = yield* runCli(["auth", "list", "--grpc", server.grpcAddress, "--api-key-file", "k"], {
          cwd: here
        })
        assert.strictEqual(withKeyFile.code, 0, withKeyFile.stderr)
        assert.strictEqual(withKeyFile.stderr, "")
        const withKeyInEnv = yield* runCli(["auth", "list", "--grpc", server.grpcAddress], {
          cwd: here,
          env: { GATEHOUSE_API_KEY: key }
        })
        assert.strictEqual(withKeyInEnv.code, 0, withKeyInEnv.stderr)
        const overSocket = yield* runCli(["auth", "list", "--unix-socket", socket], { cwd: here })
        assert.strictEqual(overSocket.code, 0, overSocket.stderr)

        // Without the key, the config is where it would come from (data_dir): it is read, and its problem said.
        const withoutKey = yield* runCli(["auth", "list", "--grpc", server.grpcAddress], { cwd: here })
        assert.strictEqual(withoutKey.code, 1)
        assert.match(withoutKey.stderr, /^gatehouse: invalid configuration \(.*gatehouse\.yml\):\n/)
        assert.include(withoutKey.stderr, "GATEHOUSE_TEST_UNSET_SECRET")

        // A --grpc the config would refuse is refused as well when the config is not read.
        const badAddress = yield* runCli(["auth", "list", "--grpc", "nowhere", "--api-key-file", "k"], { cwd: here })
        assert.strictEqual(badAddress.code, 1)
        assert.strictEqual(
          badAddress.stderr,
          'gatehouse: --grpc: expected host:port, e.g. 127.0.0.1:50443 or [::1]:50443, got "nowhere"\n'
        )
      }).pipe(Effect.scoped),
    150_000
  )
})
