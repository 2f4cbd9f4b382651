import * as fs from "node:fs"
import * as net from "node:net"
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

/** Sets Docker's environment variables (as a shell set up for the docker CLI has them) for the scope. */
const dockerEnvironment = (variables: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const saved = Object.keys(variables).map((name) => [name, process.env[name]] as const)
      Object.assign(process.env, variables)
      return saved
    }),
    (saved) =>
      Effect.sync(() => {
        for (const [name, value] of saved) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
      })
  )

/** A loopback engine that answers every request as a ping is, over TLS with `pki`'s server certificate or plain. */
const pingingEngine = (listen: (server: net.Server) => void, pki?: ReturnType<typeof makeTestCa>) =>
  Effect.acquireRelease(
    Effect.callback<net.Server, Error>((resume) => {
      const answer = (socket: net.Socket) =>
        socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK"))
      const server: net.Server =
        pki === undefined
          ? net.createServer(answer)
          : tls.createServer({ cert: fs.readFileSync(pki.serverCert), key: fs.readFileSync(pki.serverKey) }, answer)
      server.on("tlsClientError", () => {})
      server.once("error", (error) => resume(Effect.fail(error)))
      server.once("listening", () => resume(Effect.succeed(server)))
      listen(server)
    }),
    (server) => Effect.sync(() => server.close())
  )

describe("Docker's environment variables, set for the docker CLI where the server runs", () => {
  it.live("do not send a unix: engine's calls to DOCKER_HOST", () =>
    Effect.gen(function* () {
      const socket = path.join(yield* tempDir, "docker.sock")
      yield* pingingEngine((server) => server.listen(socket))
      // A closed port: a call that went there would fail.
      yield* dockerEnvironment({ DOCKER_HOST: "tcp://127.0.0.1:1" })
      const engine = yield* makeDockerEngine({ name: "local", url: `unix://${socket}`, tls: undefined })
      assert.strictEqual(String(yield* engine.call((d) => d.ping())), "OK")
    }).pipe(Effect.scoped)
  )

  it.live("do not make an https: engine without tls.ca trust DOCKER_CERT_PATH's CA", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const pki = makeTestCa(dir)
      // What `docker --tlsverify` reads from DOCKER_CERT_PATH: the CA and a client certificate.
      fs.copyFileSync(pki.clientCert, path.join(dir, "cert.pem"))
      fs.copyFileSync(pki.clientKey, path.join(dir, "key.pem"))
      const server = yield* pingingEngine((server) => server.listen(0, "127.0.0.1"), pki)
      const port = (server.address() as net.AddressInfo).port
      // docker-modem reads DOCKER_CERT_PATH only with a DOCKER_HOST (the engine's own address then wins over it).
      yield* dockerEnvironment({ DOCKER_HOST: "tcp://127.0.0.1:1", DOCKER_CERT_PATH: dir, DOCKER_TLS_VERIFY: "1" })
      const engine = yield* makeDockerEngine({ name: "nas", url: `https://127.0.0.1:${port}`, tls: undefined })
      const refused = yield* Effect.flip(engine.call((d) => d.ping()))
      assert.strictEqual(refused.message, 'Docker host "nas" is unreachable: TLS: its certificate is not trusted')
    }).pipe(Effect.scoped)
  )

  it.live("that name missing files do not fail an engine's construction", () =>
    Effect.gen(function* () {
      const socket = path.join(yield* tempDir, "docker.sock")
      yield* pingingEngine((server) => server.listen(socket))
      yield* dockerEnvironment({ DOCKER_HOST: "tcp://127.0.0.1:1", DOCKER_CERT_PATH: "/nonexistent/docker-certs" })
      const engine = yield* makeDockerEngine({ name: "local", url: `unix://${socket}`, tls: undefined })
      assert.strictEqual(String(yield* engine.call((d) => d.ping())), "OK")
      // Put back once the engine is made: the docker CLI run from the server's environment still sees them.
      assert.strictEqual(process.env.DOCKER_HOST, "tcp://127.0.0.1:1")
    }).pipe(Effect.scoped)
  )
})
