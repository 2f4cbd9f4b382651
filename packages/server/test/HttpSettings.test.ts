import * as http from "node:http"
import type * as net from "node:net"
import * as os from "node:os"
import { assert, describe, it } from "@effect/vitest"
import { loadConfig } from "@gatehouse-edge/core"
import { Effect } from "effect"
import { startTestServer } from "../../../test/support/TestServer.js"
import { allowedHosts } from "../src/AllowedHosts.js"

/**
 * A raw WebSocket upgrade with these headers; resolves with the status the server answered. An accepted upgrade
 * stays open until the scope ends (so it counts against the caps), then is cut.
 */
const upgrade = (url: string, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly status: number; readonly body: string; readonly socket?: net.Socket }>((resume) => {
      const target = new URL(url)
      const req = http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        agent: false,
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          ...headers
        }
      })
      req.on("upgrade", (res, socket) => resume(Effect.succeed({ status: res.statusCode ?? 101, body: "", socket })))
      req.on("response", (res) => {
        let body = ""
        res.on("data", (chunk) => (body += chunk))
        res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body })))
      })
      req.on("error", (error) => resume(Effect.die(error)))
      req.end()
    }),
    (reply) => Effect.sync(() => reply.socket?.destroy())
  )

const config = (http: string) =>
  loadConfig({ file: { path: "/etc/gatehouse/gatehouse.yml", text: http }, env: {}, cwd: "/" })

describe("http settings", () => {
  it("allowed_hosts adds to the loopback names and the listen host; limits have defaults", () => {
    const result = config("http:\n  addr: 127.0.0.2:8888\n  allowed_hosts: [Gatehouse.LAN, 10.0.0.2]\n")
    assert.strictEqual(result._tag, "Valid")
    if (result._tag !== "Valid") return
    assert.deepStrictEqual(result.config.http.allowedHosts, [
      "localhost",
      "127.0.0.1",
      "::1",
      "127.0.0.2",
      "gatehouse.lan",
      "10.0.0.2"
    ])
    assert.strictEqual(result.config.http.maxRequestsPerClient, 256)
    assert.strictEqual(result.config.http.maxStreamsPerClient, 1000)
    assert.strictEqual(result.config.http.maxStreams, 4000)
  })

  it("refuses a URL or a bracketed IPv6 as an allowed host, and a zero limit, at file:line:column", () => {
    const result = config(
      "http:\n  allowed_hosts: [http://gatehouse.lan, '[::1]']\n  limits:\n    streams_per_client: 0\n"
    )
    assert.strictEqual(result._tag, "Invalid")
    if (result._tag !== "Invalid") return
    const messages = result.issues.map((issue) => `${issue.path.join(".")} ${issue.line}: ${issue.message}`)
    assert.strictEqual(messages.length, 3, messages.join("\n"))
    assert.match(messages[0]!, /^http\.allowed_hosts\.0 2: expected a host name or IP address/)
    assert.match(messages[1]!, /^http\.allowed_hosts\.1 2: expected a host name or IP address/)
    assert.match(messages[2]!, /^http\.limits\.streams_per_client 4: /)
  })

  it("a server on every interface also answers to this machine's name and addresses", () => {
    const configured = ["localhost", "127.0.0.1", "::1"]
    assert.deepStrictEqual(allowedHosts("127.0.0.2", configured), configured)
    const everywhere = allowedHosts("0.0.0.0", configured)
    assert.include(everywhere, os.hostname().toLowerCase())
    for (const address of Object.values(os.networkInterfaces()).flat()) {
      if (address !== undefined) assert.include(everywhere, address.address.replace(/%.*$/, ""))
    }
  })

  it.live("the server answers WebSocket upgrades for the configured names and applies the stream caps", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer({
          configYaml: "http:\n  allowed_hosts: [gatehouse.lan]\n  limits:\n    streams_per_client: 1\n"
        })
        const port = new URL(server.origin).port
        const auth = { authorization: `Bearer ${server.apiKey}` }
        const url = `${server.wsUrl}/health`
        const rebinding = yield* upgrade(url, { ...auth, host: `evil.example:${port}` })
        assert.strictEqual(rebinding.status, 403)
        const named = yield* upgrade(url, {
          ...auth,
          host: `gatehouse.lan:${port}`,
          origin: `http://gatehouse.lan:${port}`
        })
        assert.strictEqual(named.status, 101)
        const second = yield* upgrade(url, { ...auth, host: `127.0.0.1:${port}` })
        assert.strictEqual(second.status, 429)
        assert.match(JSON.parse(second.body).error.message, /\(limit 1\)/)
      })
    )
  )
})
