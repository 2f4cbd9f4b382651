import * as fs from "node:fs"
import * as http2 from "node:http2"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { Route } from "@gatehouse-edge/contract/domain"
import { Effect, Exit, Fiber, Option, Queue } from "effect"
import { TestClock } from "effect/testing"
import type { CheckResult } from "../../src/health/CheckResult.js"
import { makeCheckFileServer, type Stat } from "../../src/health/FileServerMonitor.js"
import { checkRoute, monitorFor } from "../../src/health/Monitor.js"
import {
  closedTcpPort,
  closedUdpPort,
  h2cServer,
  httpServer,
  httpsServer,
  tcpServer,
  tempDir,
  udpSocket
} from "./LoopbackServers.js"
import { route } from "./RouteFixtures.js"

const check = (r: Route): Effect.Effect<CheckResult> =>
  checkRoute(r).pipe(Effect.map(Option.getOrThrowWith(() => new Error(`route ${r.alias} has no monitor`))))

/** Waits for something the server observed, failing the test instead of hanging if it never happens. */
const within = <A>(ms: number, what: string, effect: Effect.Effect<A>): Effect.Effect<A> =>
  Effect.timeoutOrElse(effect, { duration: ms, orElse: () => Effect.die(new Error(`timed out waiting for ${what}`)) })

describe("HTTP monitor", () => {
  it.live("2xx and 4xx are healthy, 5xx is unhealthy; HEAD by default", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const ok = yield* check(route("ok", "http", server.port, { path: "/ok" }))
      const notFound = yield* check(route("nf", "http", server.port, { path: "/notfound" }))
      const fail = yield* check(route("fail", "http", server.port, { path: "/fail" }))
      assert.strictEqual(ok.status, "healthy")
      assert.isAbove(ok.latency_ms, 0)
      assert.strictEqual(notFound.status, "healthy")
      assert.strictEqual(fail.status, "unhealthy")
      assert.strictEqual(fail.error, "HTTP 503")
      assert.deepStrictEqual(
        server.hits.map((h) => h.method),
        ["HEAD", "HEAD", "HEAD"]
      )
    }).pipe(Effect.scoped)
  )

  it.live("use_get sends GET and does not read an endless body", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const result = yield* check(route("s", "http", server.port, { path: "/stream", use_get: true, timeout_ms: 2000 }))
      assert.strictEqual(result.status, "healthy")
      assert.deepStrictEqual(server.hits, [{ method: "GET", path: "/stream" }])
      // The server is still writing when the monitor hangs up: it sees its response aborted.
      const aborted = yield* within(2000, "the body to be dropped", Queue.take(server.aborted))
      assert.strictEqual(aborted.path, "/stream")
    }).pipe(Effect.scoped)
  )

  it.live("a target that never answers is unhealthy at the timeout, and the request is torn down", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const result = yield* check(route("h", "http", server.port, { path: "/hang", timeout_ms: 300 }))
      assert.strictEqual(result.status, "unhealthy")
      assert.strictEqual(result.latency_ms, 300)
      assert.match(result.error ?? "", /no answer within 300 ms/)
      const aborted = yield* within(2000, "the hung request to be closed", Queue.take(server.aborted))
      assert.strictEqual(aborted.path, "/hang")
    }).pipe(Effect.scoped)
  )

  it.live("connection refused is unhealthy", () =>
    Effect.gen(function* () {
      const port = yield* closedTcpPort
      const result = yield* check(route("c", "http", port, { path: "/ok" }))
      assert.strictEqual(result.status, "unhealthy")
      assert.match(result.error ?? "", /ECONNREFUSED/)
    })
  )

  it.live("works against an IPv6 loopback target", () =>
    Effect.gen(function* () {
      const server = yield* httpServer("::1")
      const result = yield* check(route("v6", "http", server.port, { path: "/ok" }, { host: "::1" }))
      assert.strictEqual(result.status, "healthy")
      assert.strictEqual(server.hits.length, 1)
    }).pipe(Effect.scoped)
  )
})

describe("HTTPS monitor", () => {
  it.live("accepts a self-signed certificate and still judges the status code", () =>
    Effect.gen(function* () {
      const server = yield* httpsServer
      const ok = yield* check(route("tls", "https", server.port, { path: "/ok" }))
      const fail = yield* check(route("tls-fail", "https", server.port, { path: "/fail" }))
      assert.strictEqual(ok.status, "healthy", ok.error)
      assert.strictEqual(fail.status, "unhealthy")
      assert.strictEqual(server.hits.length, 2)
    }).pipe(Effect.scoped)
  )

  it.live("plain HTTP against the TLS port is unhealthy", () =>
    Effect.gen(function* () {
      const server = yield* httpsServer
      const result = yield* check(route("tls-plain", "http", server.port, { path: "/ok", timeout_ms: 2000 }))
      assert.strictEqual(result.status, "unhealthy")
      assert.strictEqual(server.hits.length, 0)
    }).pipe(Effect.scoped)
  )
})

describe("h2c monitor", () => {
  it.live("speaks HTTP/2 with prior knowledge: 200 healthy, 503 unhealthy, HEAD or GET", () =>
    Effect.gen(function* () {
      const server = yield* h2cServer
      const ok = yield* check(route("h2", "h2c", server.port, { path: "/ok" }))
      const fail = yield* check(route("h2-fail", "h2c", server.port, { path: "/fail" }))
      const get = yield* check(route("h2-get", "h2c", server.port, { path: "/stream", use_get: true }))
      assert.strictEqual(ok.status, "healthy", ok.error)
      assert.strictEqual(fail.status, "unhealthy")
      assert.strictEqual(fail.error, "HTTP 503")
      assert.strictEqual(get.status, "healthy", get.error)
      assert.deepStrictEqual(
        server.hits.map((h) => h.method),
        ["HEAD", "HEAD", "GET"]
      )
    }).pipe(Effect.scoped)
  )

  it.live("a target that resets the stream is unhealthy, and the check leaves no connection open", () =>
    Effect.gen(function* () {
      const sessions = new Set<http2.ServerHttp2Session>()
      const server = http2.createServer()
      server.on("stream", (stream) => {
        stream.on("error", () => {}) // closing with an error code is this server's point
        stream.close(http2.constants.NGHTTP2_REFUSED_STREAM)
      })
      server.on("session", (session) => {
        sessions.add(session)
        session.on("close", () => sessions.delete(session))
      })
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () =>
          Effect.callback<void>((resume) => {
            for (const session of sessions) session.destroy()
            server.close(() => resume(Effect.void))
          })
      )
      const port = (server.address() as { port: number }).port
      for (let i = 0; i < 3; i++) {
        const result = yield* check(route("h2-reset", "h2c", port, { path: "/ok" }))
        assert.strictEqual(result.status, "unhealthy")
      }
      // The server sees each client go: no session stays open.
      for (let i = 0; i < 250 && sessions.size > 0; i++) yield* Effect.sleep("20 millis")
      assert.strictEqual(sessions.size, 0)
    }).pipe(Effect.scoped)
  )

  it.live("an HTTP/1-only server is unhealthy for h2c", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const result = yield* check(route("h1", "h2c", server.port, { path: "/ok", timeout_ms: 2000 }))
      assert.strictEqual(result.status, "unhealthy")
    }).pipe(Effect.scoped)
  )

  it.live("connection refused is unhealthy", () =>
    Effect.gen(function* () {
      const port = yield* closedTcpPort
      const result = yield* check(route("h2-closed", "h2c", port))
      assert.strictEqual(result.status, "unhealthy")
      assert.match(result.error ?? "", /ECONNREFUSED/)
    })
  )
})

describe("TCP monitor", () => {
  it.live("a listening port is healthy, a closed one unhealthy", () =>
    Effect.gen(function* () {
      const server = yield* tcpServer
      const closed = yield* closedTcpPort
      const open = yield* check(route("tcp", "tcp", server.port))
      const shut = yield* check(route("tcp-closed", "tcp", closed))
      assert.strictEqual(open.status, "healthy")
      assert.strictEqual(server.connections.count, 1)
      assert.strictEqual(shut.status, "unhealthy")
      assert.match(shut.error ?? "", /ECONNREFUSED/)
    }).pipe(Effect.scoped)
  )

  it.live("a port node refuses to dial is an error, not a crash", () =>
    Effect.gen(function* () {
      const result = yield* check(route("bad", "tcp", 70_000))
      assert.strictEqual(result.status, "error")
      assert.match(result.error ?? "", /port/i)
    })
  )
})

describe("UDP monitor", () => {
  it.live("nothing bound (ICMP port unreachable) is unhealthy", () =>
    Effect.gen(function* () {
      const port = yield* closedUdpPort
      const result = yield* check(route("udp-closed", "udp", port, { timeout_ms: 2000 }))
      assert.strictEqual(result.status, "unhealthy")
      assert.match(result.error ?? "", /port unreachable/)
      assert.isBelow(result.latency_ms, 2000)
    })
  )

  it.live("a bound socket that stays silent is healthy after the timeout", () =>
    Effect.gen(function* () {
      const socket = yield* udpSocket(false)
      const result = yield* check(route("udp-silent", "udp", socket.port, { timeout_ms: 300 }))
      assert.strictEqual(result.status, "healthy")
      assert.strictEqual(result.latency_ms, 0)
      assert.strictEqual(socket.received.count, 1)
    }).pipe(Effect.scoped)
  )

  it.live("a reply is healthy with a measured latency", () =>
    Effect.gen(function* () {
      const socket = yield* udpSocket(true)
      const result = yield* check(route("udp-echo", "udp", socket.port, { timeout_ms: 5000 }))
      assert.strictEqual(result.status, "healthy")
      assert.isAbove(result.latency_ms, 0)
      assert.isBelow(result.latency_ms, 5000)
    }).pipe(Effect.scoped)
  )

  it.live("IPv6: bound is healthy, unbound is unhealthy", () =>
    Effect.gen(function* () {
      const socket = yield* udpSocket(true, "udp6")
      const ok = yield* check(route("udp6", "udp", socket.port, { timeout_ms: 2000 }, { host: "::1" }))
      assert.strictEqual(ok.status, "healthy")
      assert.isAbove(ok.latency_ms, 0)
      const port = yield* closedUdpPort
      const closed = yield* check(route("udp6-closed", "udp", port, { timeout_ms: 2000 }, { host: "::1" }))
      assert.strictEqual(closed.status, "unhealthy")
    }).pipe(Effect.scoped)
  )
})

describe("file server monitor", () => {
  it.live("an existing directory is healthy; a missing path or a file is not", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "index.html")
      fs.writeFileSync(file, "hi")
      const ok = yield* check(route("files", "fileserver", 0, {}, { root: dir }))
      const missing = yield* check(route("gone", "fileserver", 0, {}, { root: path.join(dir, "missing") }))
      const notDir = yield* check(route("file", "fileserver", 0, {}, { root: file }))
      assert.strictEqual(ok.status, "healthy")
      assert.strictEqual(missing.status, "unhealthy")
      assert.match(missing.error ?? "", /ENOENT/)
      assert.strictEqual(notDir.status, "unhealthy")
      assert.match(notDir.error ?? "", /not a directory/)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a check finding the monitor's previous stat still pending waits for that one instead of starting another",
    () =>
      Effect.gen(function* () {
        // A root on a hung file system: each stat answers only when the test says so.
        const pending: Array<(err: NodeJS.ErrnoException | null, stats: fs.Stats) => void> = []
        const stat: Stat = (_root, callback) => {
          pending.push(callback)
        }
        const files = route("files", "fileserver", 0, { timeout_ms: 1000 }, { root: "/mnt/hung" })
        const checker = makeCheckFileServer(stat)
        const check = checker(files, files.healthcheck ?? assert.fail("no healthcheck"))
        const timedOut: CheckResult = { status: "unhealthy", latency_ms: 1000, error: "no answer within 1000 ms" }

        const first = yield* Effect.forkChild(check)
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(yield* Fiber.join(first), timedOut)
        // The stat outlives its check; the next checks time out as before, without stacking up stats.
        for (let i = 0; i < 3; i++) {
          const again = yield* Effect.forkChild(check)
          yield* TestClock.adjust("1 second")
          assert.deepStrictEqual(yield* Fiber.join(again), timedOut)
        }
        assert.strictEqual(pending.length, 1, "one stat at a time")
        // Another route on the same root, or the monitor an edit made: no second stat either.
        const other = route("other", "fileserver", 0, { timeout_ms: 1000 }, { root: "/mnt/hung" })
        const sameRoot = yield* Effect.forkChild(checker(other, other.healthcheck ?? assert.fail("no healthcheck")))
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(yield* Fiber.join(sameRoot), timedOut)
        assert.strictEqual(pending.length, 1, "one stat at a time for the root")

        // The file system answers while a check waits: that check takes the answer.
        const waiting = yield* Effect.forkChild(check)
        yield* TestClock.adjust("100 millis")
        pending[0]?.(null, { isDirectory: () => true } as fs.Stats)
        assert.deepStrictEqual(yield* Fiber.join(waiting), { status: "healthy", latency_ms: 100 })

        // Nothing pending any more: the next check stats afresh.
        const fresh = yield* Effect.forkChild(check)
        yield* TestClock.adjust("10 millis")
        assert.strictEqual(pending.length, 2)
        pending[1]?.(Object.assign(new Error("ENOENT: no such file or directory"), { code: "ENOENT" }), {} as fs.Stats)
        assert.deepInclude(yield* Fiber.join(fresh), {
          status: "unhealthy",
          error: "ENOENT: no such file or directory"
        })
      })
  )

  it.effect("a stat that throws fails its check only: the next check stats again", () =>
    Effect.gen(function* () {
      let calls = 0
      const stat: Stat = () => {
        calls++
        throw new TypeError("The argument 'path' must be a string without null bytes")
      }
      const files = route("files", "fileserver", 0, {}, { root: "/srv/\0" })
      const check = makeCheckFileServer(stat)(files, files.healthcheck ?? assert.fail("no healthcheck"))
      assert.isTrue(Exit.hasDies(yield* Effect.exit(check)))
      assert.isTrue(Exit.hasDies(yield* Effect.exit(check)))
      assert.strictEqual(calls, 2)
    })
  )

  it.live("a file server route without root is an error", () =>
    Effect.gen(function* () {
      const result = yield* check(route("noroot", "fileserver", 0))
      assert.strictEqual(result.status, "error")
    })
  )
})

describe("monitorFor", () => {
  it("no monitor for `healthcheck: null` or `disable: true`", () => {
    assert.isTrue(Option.isNone(monitorFor(route("lb", "http", 80, null))))
    assert.isTrue(Option.isNone(monitorFor(route("off", "http", 80, { disable: true }))))
    assert.isTrue(Option.isSome(monitorFor(route("on", "http", 80))))
  })

  it("the key ignores fields the check does not use and follows those it does", () => {
    const key = (r: Route) => Option.getOrThrow(monitorFor(r)).key
    const base = route("a", "http", 80, { path: "/a" })
    assert.strictEqual(key(base), key({ ...base, homepage: { show: false } } as Route))
    assert.notStrictEqual(key(base), key(route("a", "http", 80, { path: "/b" })))
    assert.notStrictEqual(key(base), key(route("a", "http", 81, { path: "/a" })))
    assert.notStrictEqual(key(base), key(route("a", "https", 80, { path: "/a" })))
  })
})
