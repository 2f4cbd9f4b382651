import { execFile } from "node:child_process"
import * as dgram from "node:dgram"
import * as fs from "node:fs"
import * as http from "node:http"
import * as http2 from "node:http2"
import * as https from "node:https"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Queue, type Scope } from "effect"
import { freePort } from "../../../../test/support/FreePort.js"

/** What one HTTP request looked like, as the server saw it. */
export interface Hit {
  readonly method: string
  readonly path: string
}

/** A loopback server plus what it observed. */
export interface Observed {
  readonly port: number
  readonly hits: Array<Hit>
  /** Requests whose connection was closed before the server finished answering (the client gave up). */
  readonly aborted: Queue.Queue<Hit>
  /** Every request as it arrives. */
  readonly arrivals: Queue.Queue<Hit>
}

/** A request the server holds until the test answers it. */
export interface Held extends Hit {
  readonly respond: (status: number) => Effect.Effect<void>
}

const listen = <S extends net.Server>(server: S, host: string): Effect.Effect<S, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<S>((resume) => {
      server.listen(0, host, () => resume(Effect.succeed(server)))
    }),
    (s) =>
      Effect.callback<void>((resume) => {
        if ("closeAllConnections" in s && typeof s.closeAllConnections === "function") s.closeAllConnections()
        s.close(() => resume(Effect.void))
      })
  )

const portOf = (server: net.Server): number => (server.address() as net.AddressInfo).port

/**
 * Paths: `/ok` 200, `/notfound` 404, `/fail` 503, `/hang` never answers, `/stream` 200 with an endless body,
 * `/held/*` waits for the test (see `held`). The status of `/toggle` is read from `toggle.status` on each request.
 */
const handler =
  (observed: Omit<Observed, "port">, held: Queue.Queue<Held>, toggle: { status: number }) =>
  (req: http.IncomingMessage, res: http.ServerResponse) => {
    const hit: Hit = { method: req.method ?? "", path: req.url ?? "" }
    observed.hits.push(hit)
    Queue.offerUnsafe(observed.arrivals, hit)
    res.on("close", () => {
      if (!res.writableFinished) Queue.offerUnsafe(observed.aborted, hit)
    })
    const send = (status: number) => {
      res.writeHead(status, { "content-type": "text/plain" })
      res.end("x")
    }
    if (hit.path === "/ok") return send(200)
    if (hit.path === "/notfound") return send(404)
    if (hit.path === "/fail") return send(503)
    if (hit.path === "/toggle") return send(toggle.status)
    if (hit.path === "/hang") return
    if (hit.path === "/stream") {
      res.writeHead(200, { "content-type": "application/octet-stream" })
      const chunk = Buffer.alloc(64 * 1024, 1)
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {}
      }
      res.on("drain", pump)
      return pump()
    }
    if (hit.path.startsWith("/held")) {
      return Queue.offerUnsafe(held, { ...hit, respond: (status) => Effect.sync(() => send(status)) })
    }
    send(500)
  }

/** What every HTTP-ish test server exposes. */
export interface TestHttpServer extends Observed {
  readonly held: Queue.Queue<Held>
  readonly toggle: { status: number }
}

const makeObserved = Effect.gen(function* () {
  return {
    hits: [] as Array<Hit>,
    aborted: yield* Queue.unbounded<Hit>(),
    arrivals: yield* Queue.unbounded<Hit>(),
    held: yield* Queue.unbounded<Held>(),
    toggle: { status: 200 }
  }
})

/** An HTTP/1.1 server on `host` (default 127.0.0.1), closed with the scope. */
export const httpServer = (host = "127.0.0.1"): Effect.Effect<TestHttpServer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const o = yield* makeObserved
    const server = yield* listen(http.createServer(handler(o, o.held, o.toggle)), host)
    return { ...o, port: portOf(server) }
  })

/** An HTTP/2 cleartext (prior knowledge) server. */
export const h2cServer: Effect.Effect<TestHttpServer, never, Scope.Scope> = Effect.gen(function* () {
  const o = yield* makeObserved
  const sessions = new Set<http2.ServerHttp2Session>()
  const h = handler(o, o.held, o.toggle)
  // The HTTP/2 compatibility API mirrors the HTTP/1 request/response closely enough for this handler.
  const server = http2.createServer((req, res) =>
    h(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse)
  )
  server.on("session", (s) => {
    sessions.add(s)
    s.on("close", () => sessions.delete(s))
  })
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      for (const s of sessions) s.destroy()
    })
  )
  yield* listen(server, "127.0.0.1")
  return { ...o, port: portOf(server) }
})

const run = (file: string, args: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    execFile(file, [...args], (err) => resume(err ? Effect.die(err) : Effect.void))
  })

/** A temp directory removed with the scope. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-health-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** An HTTPS server with a self-signed certificate made by the `openssl` CLI for this test run. */
export const httpsServer: Effect.Effect<TestHttpServer, never, Scope.Scope> = Effect.gen(function* () {
  const dir = yield* tempDir
  const key = path.join(dir, "key.pem")
  const cert = path.join(dir, "cert.pem")
  yield* run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "1",
    "-subj",
    "/CN=gatehouse-test"
  ])
  const o = yield* makeObserved
  const server = https.createServer(
    { key: fs.readFileSync(key), cert: fs.readFileSync(cert) },
    handler(o, o.held, o.toggle)
  )
  yield* listen(server, "127.0.0.1")
  return { ...o, port: portOf(server) }
})

/** A TCP server that accepts and counts connections. */
export const tcpServer: Effect.Effect<{ port: number; connections: { count: number } }, never, Scope.Scope> =
  Effect.gen(function* () {
    const connections = { count: 0 }
    const sockets = new Set<net.Socket>()
    const server = net.createServer((socket) => {
      connections.count++
      sockets.add(socket)
      socket.on("error", () => {})
      socket.on("close", () => sockets.delete(socket))
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const s of sockets) s.destroy()
      })
    )
    yield* listen(server, "127.0.0.1")
    return { port: portOf(server), connections }
  })

/**
 * A TCP port on 127.0.0.1 that nothing listens on. Not one bound and released: that comes from the ephemeral range,
 * where another test file's `listen(0)` could take it before the check (see FreePort.ts); this one is below it, in
 * this worker's own slice.
 */
export const closedTcpPort: Effect.Effect<number> = freePort

/** A bound UDP socket; with `echo` it answers every datagram. Records what it received. */
export const udpSocket = (
  echo: boolean,
  type: "udp4" | "udp6" = "udp4"
): Effect.Effect<{ port: number; received: { count: number } }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const received = { count: 0 }
    const socket = yield* Effect.acquireRelease(
      Effect.callback<dgram.Socket>((resume) => {
        const s = dgram.createSocket(type)
        s.on("message", (msg, rinfo) => {
          received.count++
          if (echo) s.send(msg, rinfo.port, rinfo.address)
        })
        s.bind(0, type === "udp4" ? "127.0.0.1" : "::1", () => resume(Effect.succeed(s)))
      }),
      (s) => Effect.sync(() => s.close())
    )
    return { port: socket.address().port, received }
  })

/**
 * A UDP port with nothing bound, on 127.0.0.1 or ::1: one of this worker's ports below the ephemeral range (see
 * {@link closedTcpPort}), where no `bind(0)` of any process lands; the tests here bind UDP ports only with `bind(0)`.
 */
export const closedUdpPort: Effect.Effect<number> = freePort
