import * as fs from "node:fs"
import * as http2 from "node:http2"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import { protoPath as healthProtoPath } from "grpc-health-check"
import { clientOfPeer, makeCallLimits } from "../src/CallLimits.js"
import { AuthServiceCallError, authServiceEffectClient, makeAuthServiceClient } from "../src/client.js"
import { GrpcServerAddress, GrpcServerError } from "../src/index.js"
import { call, clientOf, grpcServerLayer, keys, ok } from "./support/GrpcHarness.js"

const sshCheck = { kind: "AUTH_REQUEST_KIND_SSH_CHECK", sshCheck: { src: "127.0.0.1", dst: "db1", localUser: "root" } }

type HealthClient = grpc.Client & { Watch: (request: { service: string }) => grpc.ClientReadableStream<unknown> }

const healthClient = Effect.gen(function* () {
  const address = yield* GrpcServerAddress
  const health = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath)) as unknown as {
    grpc: { health: { v1: { Health: new (a: string, c: grpc.ChannelCredentials) => HealthClient } } }
  }
  const client = new health.grpc.health.v1.Health(`127.0.0.1:${address.port}`, grpc.credentials.createInsecure())
  yield* Effect.addFinalizer(() => Effect.sync(() => client.close()))
  return client
})

/** The first message of a stream, or how it ended first ("<code>: <details>"). */
const firstOf = (stream: grpc.ClientReadableStream<unknown>) =>
  Effect.callback<unknown>((resume) => {
    stream.once("data", (message) => resume(Effect.succeed(message)))
    stream.once("error", (error: grpc.ServiceError) => resume(Effect.succeed(`${error.code}: ${error.details}`)))
  })

describe("gRPC limits", () => {
  it.effect("a client's watches are capped; a cancelled one frees its place", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const created = ok(yield* call<{ authRequest: { authId: string } }>(client, "CreateAuthRequest", sshCheck))
      const watch = client.WatchAuthRequest({ authId: created.authRequest.authId })
      watch.on("error", () => {})
      assert.isObject(yield* firstOf(watch))
      // A second watch from the same client is refused, before any work, with the cap it passed.
      const second = client.WatchAuthRequest({ authId: created.authRequest.authId })
      second.on("error", () => {})
      assert.strictEqual(yield* firstOf(second), "8: too many streams from 127.0.0.1 (limit 1)")
      watch.cancel()
      let reopened: unknown
      for (let i = 0; i < 200; i++) {
        const again = client.WatchAuthRequest({ authId: created.authRequest.authId })
        again.on("error", () => {})
        reopened = yield* firstOf(again)
        if (typeof reopened !== "string") break
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
      }
      assert.isObject(reopened)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ limits: { streamsPerClient: 1 } })))
  )

  it.effect(
    "keyless health watches have caps of their own: however many are open, an authenticated watch gets its place",
    () =>
      Effect.gen(function* () {
        const client = yield* clientOf({ apiKey: keys.valid.key })
        const health = yield* healthClient
        // As many health watches as the server has stream places in all, each answered.
        const healthWatches = Array.from({ length: 10 }, () => health.Watch({ service: "" }))
        for (const healthWatch of healthWatches) {
          healthWatch.on("error", () => {})
          assert.deepStrictEqual(yield* firstOf(healthWatch), { status: 1 }) // SERVING
        }
        const created = ok(yield* call<{ authRequest: { authId: string } }>(client, "CreateAuthRequest", sshCheck))
        const watch = client.WatchAuthRequest({ authId: created.authRequest.authId })
        watch.on("error", () => {})
        assert.deepInclude(yield* firstOf(watch), { state: "AUTH_REQUEST_STATE_PENDING" })
        // Past the keyless caps, a health watch is refused; the authenticated watch stays.
        const over = health.Watch({ service: "" })
        over.on("error", () => {})
        assert.strictEqual(yield* firstOf(over), "8: too many health and reflection streams on this server (limit 10)")
        // A name the server does not serve is answered, and not kept.
        healthWatches[0]!.cancel()
        let unknown: unknown
        for (let i = 0; i < 200; i++) {
          const again = health.Watch({ service: "no.such.Service" })
          again.on("error", () => {})
          unknown = yield* firstOf(again)
          if (typeof unknown !== "string") break
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
        }
        assert.deepStrictEqual(unknown, { status: 3 }) // SERVICE_UNKNOWN
        for (const healthWatch of healthWatches) healthWatch.cancel()
        watch.cancel()
      }).pipe(
        Effect.scoped,
        Effect.provide(
          grpcServerLayer({
            limits: { streams: 10, streamsPerClient: 10, publicStreams: 10, publicStreamsPerClient: 20 }
          })
        )
      )
  )

  it.live("a watch whose client stops reading is ended with slow_consumer once its writes wait too long", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const created = ok(yield* call<{ authRequest: { authId: string } }>(client, "CreateAuthRequest", sshCheck))
      const address = yield* GrpcServerAddress
      // A raw HTTP/2 client with a 1 KiB window that reads nothing: the server's writes soon wait for it.
      const session = http2.connect(`http://127.0.0.1:${address.port}`, { settings: { initialWindowSize: 1024 } })
      yield* Effect.addFinalizer(() => Effect.sync(() => session.destroy()))
      const authId = Buffer.from(created.authRequest.authId)
      const message = Buffer.concat([Buffer.from([0x0a, authId.length]), authId])
      const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message])
      const stream = session.request({
        ":method": "POST",
        ":path": "/gatehouse.v1.AuthService/WatchAuthRequest",
        "content-type": "application/grpc",
        te: "trailers",
        authorization: `Bearer ${keys.valid.key}`
      })
      stream.end(frame)
      stream.pause()
      const status = yield* Effect.callback<string>((resume) => {
        stream.on("trailers", (trailers) =>
          resume(Effect.succeed(`${trailers["grpc-status"]}: ${decodeURIComponent(String(trailers["grpc-message"]))}`))
        )
        stream.on("error", (error) => resume(Effect.succeed(`stream error: ${error.message}`)))
        // Reading again only well after the server gave up: what was queued arrives, then the status.
        setTimeout(() => stream.resume(), 3000)
      })
      assert.strictEqual(status, "8: client too slow")
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ heartbeatMs: 1, drainTimeoutMs: 500 })))
  )

  it.live("a stopping server ends its watches with shutting_down, and the typed client's watch fails with it", () =>
    Effect.gen(function* () {
      const serverScope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(grpcServerLayer(), serverScope)
      const address = Context.get(context, GrpcServerAddress)
      const raw = makeAuthServiceClient({
        address: `127.0.0.1:${address.port}`,
        apiKey: keys.valid.key,
        insecure: true
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => raw.close()))
      const client = authServiceEffectClient(raw)
      const created = yield* client.create({
        kind: "ssh_check",
        ssh_check: { src: "127.0.0.1", dst: "db1", local_user: "root" }
      })
      const started = yield* Deferred.make<void>()
      const watching = yield* Effect.forkChild(
        Stream.runCollect(Stream.tap(client.watch(created.auth_id), () => Deferred.succeed(started, undefined)))
      )
      yield* Deferred.await(started)
      const stopping = yield* Effect.forkChild(Scope.close(serverScope, Exit.void))
      // Not a clean end while the request is pending, and not the CANCELLED of a server that gave up waiting
      // (its grace is 10 s): the server said why.
      const error = yield* Effect.flip(Fiber.join(watching))
      assert.instanceOf(error, AuthServiceCallError)
      assert.strictEqual(error.code, "shutting_down")
      yield* Fiber.join(stopping)
    }).pipe(Effect.scoped)
  )

  it.effect("a request message over 64 KiB is RESOURCE_EXHAUSTED, and the server keeps answering", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const huge = yield* call(client, "GetAuthRequest", { authId: "x".repeat(70 * 1024) })
      assert.deepInclude(huge, { code: grpc.status.RESOURCE_EXHAUSTED })
      const created = ok(yield* call<{ authRequest: { authId: string } }>(client, "CreateAuthRequest", sshCheck))
      assert.match(created.authRequest.authId, /^ghreq_/)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("a unix socket path taken by something else is refused, never deleted", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-grpc-path-"))
      const taken = path.join(dir, "gatehouse.sock")
      fs.writeFileSync(taken, "operator's file\n")
      const refused = yield* Effect.flip(Layer.build(grpcServerLayer({ unixSocket: taken })))
      assert.instanceOf(refused, GrpcServerError)
      assert.match(refused.message, /something other than a socket is there/)
      assert.strictEqual(fs.readFileSync(taken, "utf8"), "operator's file\n")
      fs.rmSync(dir, { recursive: true, force: true })
    }).pipe(Effect.scoped)
  )

  it.effect("a unix socket a live server listens on is never taken over; a stale one is replaced", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-grpc-twice-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const socketPath = path.join(dir, "gatehouse.sock")
      const first = yield* Layer.build(Layer.fresh(grpcServerLayer({ unixSocket: socketPath })))
      const refused = yield* Layer.build(Layer.fresh(grpcServerLayer({ unixSocket: socketPath }))).pipe(
        Effect.match({
          onSuccess: () => "the second server started",
          onFailure: (error) => (error instanceof GrpcServerError ? error.message : String(error))
        })
      )
      assert.strictEqual(
        refused,
        `cannot use ${socketPath} for the gRPC unix socket: ` +
          "another server is listening on it; stop that one or choose another path"
      )
      // The first server still answers over its socket.
      const client = yield* Effect.provide(clientOf({ unix: true }), first)
      const answered = yield* call<unknown>(client, "ListUsers", {})
      assert.property(answered, "ok")
      // A socket nothing listens on any more (its server killed) is replaced.
      const stale = path.join(dir, "stale.sock")
      yield* Effect.callback<void>((resume) => {
        const server = net.createServer().listen(stale, () => {
          // Closing a listener removes its socket file: hard-link it first, as a killed process would leave it.
          fs.linkSync(stale, `${stale}.kept`)
          server.close(() => {
            fs.renameSync(`${stale}.kept`, stale)
            resume(Effect.void)
          })
        })
      })
      assert.isTrue(fs.lstatSync(stale).isSocket())
      const second = yield* Layer.build(Layer.fresh(grpcServerLayer({ unixSocket: stale })))
      const secondClient = yield* Effect.provide(clientOf({ unix: true }), second)
      assert.property(yield* call<unknown>(secondClient, "ListUsers", {}), "ok")
    }).pipe(Effect.scoped)
  )

  it("counts calls per client: an IPv6 /64 is one, the unix socket's clients are one", () => {
    assert.strictEqual(clientOfPeer("127.0.0.1:50000"), "127.0.0.1")
    assert.strictEqual(clientOfPeer("::ffff:127.0.0.1:50000"), "127.0.0.1")
    assert.strictEqual(clientOfPeer("2001:db8:0:7::1:50000"), "2001:db8:0:7::/64")
    assert.strictEqual(clientOfPeer("unknown"), "unknown")
    const limits = makeCallLimits({
      callsPerClient: 2,
      streamsPerClient: 1,
      streams: 2,
      publicStreamsPerClient: 1,
      publicStreams: 1
    })
    const first = limits.call("10.0.0.1:1")
    const second = limits.call("10.0.0.1:2")
    assert.isFunction(first)
    assert.isFunction(second)
    assert.notInstanceOf(limits.call("10.0.0.2:1"), Error, "another client has its own count")
    assert.match(String((limits.call("10.0.0.1:3") as Error).message), /too many concurrent calls from 10\.0\.0\.1/)
    ;(first as () => void)()
    ;(first as () => void)() // twice gives back one place only
    assert.isFunction(limits.call("10.0.0.1:4"))
    assert.instanceOf(limits.call("10.0.0.1:5"), Error)
    assert.isFunction(limits.stream("10.0.0.1:6"))
    assert.isFunction(limits.stream("10.0.0.2:6"))
    assert.match(String((limits.stream("10.0.0.3:6") as Error).message), /too many streams on this server \(limit 2\)/)
    assert.strictEqual(limits.openStreams(), 2)
    // Keyless streams are counted apart: the full stream caps do not refuse them, nor they the streams.
    assert.isFunction(limits.publicStream("10.0.0.1:7"))
    assert.match(
      String((limits.publicStream("10.0.0.2:7") as Error).message),
      /too many health and reflection streams on this server \(limit 1\)/
    )
    assert.strictEqual(limits.openStreams(), 2)
    assert.strictEqual(limits.openPublicStreams(), 1)
  })
})
