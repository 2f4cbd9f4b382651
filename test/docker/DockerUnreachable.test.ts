import * as fs from "node:fs"
import type * as net from "node:net"
import * as path from "node:path"
import * as tls from "node:tls"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../../packages/transport-http/test/support/Http.js"
import { freePort } from "../support/FreePort.js"
import { tempDir } from "../support/TempDir.js"
import { makeTestCa } from "../support/TestCa.js"
import { startTestServer } from "../support/TestServer.js"
import { waitFor } from "../support/WaitFor.js"

// Engines that cannot be reached, and none that can: no dockerd is needed. What the API says of them must name the
// engine (by its configured name) and the kind of failure, and never the driver's text (`connect ENOENT
// /var/run/docker.sock`, `connect ECONNREFUSED 127.0.0.1:2375`): paths and addresses are the server's own business.

/** A loopback TLS server presenting `cert`, closed with the scope. */
const tlsServer = (cert: string, key: string) =>
  Effect.acquireRelease(
    Effect.callback<tls.Server & { port: number }>((resume) => {
      const server = tls.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (socket) =>
        socket.destroy()
      )
      // A refused handshake is an error on the server's side too.
      server.on("tlsClientError", () => {})
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed(Object.assign(server, { port: (server.address() as net.AddressInfo).port })))
      )
    }),
    (server) => Effect.sync(() => server.close())
  )

/** The server's `config/error` events, as one JSON text. */
const configErrors = (baseUrl: string, key: string) =>
  Effect.map(request(`${baseUrl}/events?category=config`, { key }), (reply) =>
    JSON.stringify(reply.json.filter((e: { action: string }) => e.action === "error"))
  )

const unreachable = (host: string, why: string) => `Docker host \\"${host}\\" is unreachable: ${why}`

describe("Docker engines that cannot be reached, over the HTTP API", () => {
  it.live("503 bodies and config/error events name the engine and the kind of failure, not a path or address", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-docker-down-")
        const missing = path.join(dir, "run", "docker.sock")
        // Nothing listens there: refused.
        const closed = yield* freePort
        fs.mkdirSync(path.join(dir, "pki"))
        fs.mkdirSync(path.join(dir, "other"))
        const pki = makeTestCa(path.join(dir, "pki"))
        const stranger = makeTestCa(path.join(dir, "other"))
        const untrusted = yield* tlsServer(pki.serverCert, pki.serverKey)
        const server = yield* startTestServer({
          configYaml: [
            "docker:",
            "  hosts:",
            `    - { name: missing, url: "unix://${missing}" }`,
            `    - { name: refused, url: "tcp://127.0.0.1:${closed}" }`,
            `    - { name: untrusted, url: "tcp://127.0.0.1:${untrusted.port}", tls: { ca: "${stranger.ca}" } }`,
            ""
          ].join("\n")
        })
        const key = server.apiKey
        const secrets = [dir, "ENOENT", "ECONNREFUSED", `127.0.0.1:${closed}`, `127.0.0.1:${untrusted.port}`]

        // No engine answers: the list is the first one's error.
        const list = yield* request(`${server.baseUrl}/docker/containers`, { key })
        assert.strictEqual(list.status, 503, list.text)
        assert.deepStrictEqual(list.json.error, {
          code: "unavailable",
          message: 'Docker host "missing" is unreachable: no socket at its address',
          details: [{ reason: "DockerHostUnreachable", host: "missing", detail: "no socket at its address" }]
        })
        const stats = yield* request(`${server.baseUrl}/docker/stats/web`, { key })
        assert.strictEqual(stats.status, 503, stats.text)
        for (const reply of [list, stats]) for (const secret of secrets) assert.notInclude(reply.text, secret)

        // Each engine is a route source problem of its own, reported once.
        const events = yield* waitFor(
          configErrors(server.baseUrl, key),
          (text) => ["missing", "refused", "untrusted"].every((host) => text.includes(`Docker host \\"${host}\\"`)),
          "a config/error event for each engine"
        )
        assert.include(events, unreachable("missing", "no socket at its address"))
        assert.include(events, unreachable("refused", "connection refused"))
        assert.include(events, unreachable("untrusted", "TLS: its certificate is not trusted"))
        for (const secret of secrets) assert.notInclude(events, secret)
      })
    )
  )
})
