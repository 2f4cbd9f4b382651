import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import * as tls from "node:tls"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../../packages/transport-http/test/support/Http.js"
import { spawnServer } from "../support/Cli.js"
import { startDockerd } from "../support/Dockerd.js"
import { requireTool } from "../support/e2e.js"
import { tempDir } from "../support/TempDir.js"
import { makeTestCa } from "../support/TestCa.js"

// An engine configured as `https://host:port` with no `tls:` block is reached over TLS, trusting what the process
// trusts: node's roots and NODE_EXTRA_CA_CERTS, here the test CA (standing in for a CA the system trusts), given to
// a `gatehouse serve` process (the variable is read when node starts). In front of a real dockerd, a TLS front on
// loopback that presents a certificate of that CA and passes the bytes on to the engine's socket.

const dockerd = requireTool("dockerd")

/** A TLS server on loopback presenting `cert`, piping each connection to the unix socket `socket`; scoped. */
const tlsFront = (cert: string, key: string, socket: string) =>
  Effect.acquireRelease(
    Effect.callback<tls.Server & { port: number }>((resume) => {
      const server = tls.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (client) => {
        const engine = net.connect(socket)
        client.pipe(engine).pipe(client)
        client.on("error", () => engine.destroy())
        engine.on("error", () => client.destroy())
      })
      // A client that refuses the certificate, or speaks plain HTTP, fails the handshake: not the server's error.
      server.on("tlsClientError", () => {})
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed(Object.assign(server, { port: (server.address() as net.AddressInfo).port })))
      )
    }),
    (server) => Effect.sync(() => server.close())
  )

describe.skipIf(dockerd.skip)("a Docker engine at an https:// address", { timeout: 90_000 }, () => {
  it.live("is reached over TLS without a tls: block, trusting NODE_EXTRA_CA_CERTS; untrusted without it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-docker-https-")
        fs.mkdirSync(path.join(dir, "pki"))
        const pki = makeTestCa(path.join(dir, "pki"))
        const engine = yield* startDockerd
        yield* engine.run("remote", { Cmd: ["sleep", "1000"], StopSignal: "SIGKILL" })
        const front = yield* tlsFront(pki.serverCert, pki.serverKey, engine.socket)
        const config = path.join(dir, "gatehouse.yaml")
        fs.writeFileSync(config, `docker:\n  hosts:\n    - { name: secure, url: "https://127.0.0.1:${front.port}" }\n`)
        const containersWith = (env: Record<string, string>) =>
          Effect.scoped(
            Effect.gen(function* () {
              const data = path.join(dir, `data-${Object.keys(env).length}`)
              const server = yield* spawnServer(["--config", config, "--data", data, "--http", "127.0.0.1:0"], {
                cwd: dir,
                env
              })
              const key = fs.readFileSync(path.join(data, "admin.key"), "utf8").trim()
              const reply = yield* request(`${server.baseUrl}/docker/containers`, { key })
              yield* server.stop()
              return reply
            })
          )

        const trusted = yield* containersWith({ NODE_EXTRA_CA_CERTS: pki.ca })
        assert.strictEqual(trusted.status, 200, trusted.text)
        assert.deepStrictEqual(
          trusted.json.map((c: { host: string; name: string }) => `${c.host}/${c.name}`),
          ["secure/remote"]
        )
        // The same engine, the CA not trusted: TLS was spoken, and the certificate checked.
        const untrusted = yield* containersWith({})
        assert.strictEqual(untrusted.status, 503, untrusted.text)
        assert.strictEqual(
          untrusted.json.error.message,
          'Docker host "secure" is unreachable: TLS: its certificate is not trusted'
        )
      })
    )
  )
})
