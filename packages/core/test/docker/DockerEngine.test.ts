import * as fs from "node:fs"
import type * as net from "node:net"
import * as path from "node:path"
import * as tls from "node:tls"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Logger } from "effect"
import { TestClock } from "effect/testing"
import { silentServer } from "../../../../test/support/SilentServer.js"
import { makeTestCa } from "../../../../test/support/TestCa.js"
import { engineCallTimeoutMs, makeDockerEngine } from "../../src/docker/DockerEngine.js"
import { DockerHostUnreachable } from "../../src/index.js"
import { tempDir } from "../store/TempDir.js"

describe("a Docker engine that accepts connections and never answers", () => {
  it.effect("fails a call as unreachable after the call timeout, then fails at once with the same error", () =>
    Effect.gen(function* () {
      const silent = yield* silentServer
      const engine = yield* makeDockerEngine({ name: "stuck", url: `tcp://127.0.0.1:${silent.port}`, tls: undefined })
      const listing = yield* Effect.forkChild(engine.call((d) => d.listContainers({ all: true })))
      yield* TestClock.adjust(engineCallTimeoutMs)
      const error = yield* Effect.flip(Fiber.join(listing))
      assert.instanceOf(error, DockerHostUnreachable)
      assert.strictEqual(error.message, 'Docker host "stuck" is unreachable: timed out: no answer within 30 s')
      // During the back-off: at once, and word for word the same (a changing text was a new problem each read).
      yield* TestClock.adjust("100 millis")
      const again = yield* Effect.flip(engine.call((d) => d.listContainers({ all: true })))
      assert.strictEqual(again.message, error.message)
      const stream = yield* Effect.flip(engine.stream("/events"))
      assert.strictEqual(stream.message, error.message)
    }).pipe(Effect.scoped)
  )
})

describe("a Docker engine at a socket that does not exist", () => {
  it.effect("fails with the engine's name and the kind of failure; the driver's text is logged, once", () => {
    const logged: Array<string> = []
    return Effect.gen(function* () {
      const socket = path.join(yield* tempDir, "docker.sock")
      const engine = yield* makeDockerEngine({ name: "local", url: `unix://${socket}`, tls: undefined })
      const first = yield* Effect.flip(engine.call((d) => d.ping()))
      assert.instanceOf(first, DockerHostUnreachable)
      assert.deepStrictEqual([first.host, first.detail], ["local", "no socket at its address"])
      assert.notInclude(first.message, socket)
      // Tried again after the back-off, and failing the same way: word for word the same error (a route problem
      // an engine makes is compared to avoid announcing it again), and no second log line.
      yield* TestClock.adjust("1 second")
      const again = yield* Effect.flip(engine.stream("/events"))
      assert.strictEqual(again.message, first.message)
      assert.deepStrictEqual(logged, [
        `Docker host "local" is unreachable: no socket at its address (connect ENOENT ${socket})`
      ])
    }).pipe(Effect.scoped, Effect.provide(Logger.layer([Logger.make(({ message }) => logged.push(String(message)))])))
  })
})

describe("a Docker engine at https://host without a port", () => {
  it.live("is reached over TLS on 2376, Docker's TLS port", () =>
    Effect.gen(function* () {
      const pki = makeTestCa(yield* tempDir)
      // An engine's TLS port on loopback: every request is answered as a ping is.
      const engine = tls.createServer(
        { cert: fs.readFileSync(pki.serverCert), key: fs.readFileSync(pki.serverKey) },
        (socket) =>
          socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK"))
      )
      engine.on("tlsClientError", () => {})
      yield* Effect.acquireRelease(
        Effect.callback<void, Error>((resume) => {
          engine.once("error", (error) => resume(Effect.fail(error)))
          engine.listen(2376, "127.0.0.1", () => resume(Effect.void))
        }),
        () => Effect.sync(() => engine.close())
      )
      assert.strictEqual((engine.address() as net.AddressInfo).port, 2376)
      // Without a tls: block, as the config allows for https: the test CA is not among node's roots, so the
      // certificate is refused, which only a TLS handshake there can tell.
      const plain = yield* makeDockerEngine({ name: "nas", url: "https://127.0.0.1", tls: undefined })
      const refused = yield* Effect.flip(plain.call((d) => d.ping()))
      assert.strictEqual(refused.message, 'Docker host "nas" is unreachable: TLS: its certificate is not trusted')
      const trusting = yield* makeDockerEngine({
        name: "nas",
        url: "https://127.0.0.1",
        tls: { ca: pki.ca, cert: undefined, key: undefined }
      })
      assert.strictEqual(String(yield* trusting.call((d) => d.ping())), "OK")
    }).pipe(Effect.scoped)
  )
})
