import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import { grpcPlaintextRefusal, ServerShuttingDown } from "@gatehouse-edge/core/domain"
import type { Authentication, AuthRequests } from "@gatehouse-edge/core/services"
import * as grpc from "@grpc/grpc-js"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { bearerAuthenticator, type CallAuthenticator, unixSocketAuthenticator } from "./CallAuthentication.js"
import { defaultGrpcLimits, type GrpcLimits, makeCallLimits } from "./CallLimits.js"
import { defaultGrpcConnectionLimits, type GrpcConnectionLimits, listenCapped } from "./CappedListener.js"
import { addHealthService } from "./GrpcHealth.js"
import { addReflectionService } from "./GrpcReflection.js"
import { makeAuthServiceHandlers } from "./handlers/AuthServiceHandlers.js"
import { loadGatehouseProto, requiredScopes } from "./ProtoLoader.js"

/** Where the gRPC server listens. */
export interface GrpcServerOptions {
  readonly host: string
  /** 0 picks a free port (tests); {@link GrpcServerAddress} tells which. */
  readonly port: number
  /** PEM files; without them the listener is plaintext, allowed only on loopback or with `insecure`. */
  readonly tls?: { readonly cert: string; readonly key: string } | undefined
  readonly insecure?: boolean | undefined
  /** A unix socket served without authentication, created with mode 0770. */
  readonly unixSocket?: string | undefined
  /** Largest message sent (default 4 MiB): a larger answer is RESOURCE_EXHAUSTED. */
  readonly maxMessageBytes?: number | undefined
  /**
   * Largest request message accepted (default 64 KiB; the largest real request is a few KiB): a larger one is
   * RESOURCE_EXHAUSTED before any of it is buffered past the limit.
   */
  readonly maxRequestBytes?: number | undefined
  /** Calls and streams at once per client and in total (default: the HTTP API's, {@link defaultGrpcLimits}). */
  readonly limits?: Partial<GrpcLimits> | undefined
  /**
   * TCP connections at once per client and in total (default {@link defaultGrpcConnectionLimits}); not the unix
   * socket's, whose mode keeps strangers out.
   */
  readonly connections?: GrpcConnectionLimits | undefined
  /** How long a watch waits for a client that stopped reading before ending it with `slow_consumer` (30 s). */
  readonly drainTimeoutMs?: number | undefined
  /** How often a pending WatchAuthRequest repeats its state (default 15 s). */
  readonly heartbeatMs?: number | undefined
  /** How long shutdown waits for in-flight calls before cancelling them (default 10 s). */
  readonly shutdownGraceMs?: number | undefined
}

/** The gRPC server could not start: a refused configuration or an address it could not bind. */
export class GrpcServerError extends Data.TaggedError("GrpcServerError")<{ readonly message: string }> {}

/** The addresses the running gRPC server listens on. */
export class GrpcServerAddress extends Context.Service<
  GrpcServerAddress,
  { readonly host: string; readonly port: number; readonly unixSocket: string | undefined }
>()("@gatehouse-edge/transport-grpc/GrpcServerAddress") {}

const bind = (server: grpc.Server, address: string, credentials: grpc.ServerCredentials) =>
  Effect.callback<number, GrpcServerError>((resume) => {
    server.bindAsync(address, credentials, (error, port) =>
      resume(
        error === null
          ? Effect.succeed(port)
          : Effect.fail(new GrpcServerError({ message: `cannot listen on ${address}: ${error.message}` }))
      )
    )
  })

const shutdown = (server: grpc.Server, graceMs: number) =>
  Effect.callback<void>((resume) => {
    // In-flight calls finish (new ones are refused); past the grace period the rest are cancelled.
    const timer = setTimeout(() => server.forceShutdown(), graceMs)
    server.tryShutdown(() => {
      clearTimeout(timer)
      resume(Effect.void)
    })
  })

const unixSocketError = (socketPath: string, error: unknown) => {
  const reason = error instanceof Error ? error.message : String(error)
  return new GrpcServerError({ message: `cannot use ${socketPath} for the gRPC unix socket: ${reason}` })
}

// What answers at a unix socket: "listening" when something accepts a connection, "refused" when nothing does (a
// socket left by a killed process), "gone" when the path went meanwhile.
const probeSocket = (socketPath: string) =>
  new Promise<"listening" | "refused" | "gone">((resolve, reject) => {
    const connection = net.connect(socketPath)
    connection.once("connect", () => {
      connection.destroy()
      resolve("listening")
    })
    connection.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") resolve("refused")
      else if (error.code === "ENOENT") resolve("gone")
      else reject(error)
    })
  })

// A socket left by a killed process would make the bind fail, so it goes; a live server's socket is never taken
// over (a second server with the same unix_socket would otherwise cut the first off its clients, silently), and
// anything else at that path (a file, a directory: a mistyped path) is refused, never deleted.
const removeStaleSocket = (socketPath: string) =>
  Effect.tryPromise({
    try: async () => {
      const found = await fs.lstat(socketPath).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return undefined
        throw error
      })
      if (found === undefined) return
      if (!found.isSocket()) throw new Error("something other than a socket is there; remove it or choose another path")
      const probed = await probeSocket(socketPath)
      if (probed === "listening")
        throw new Error("another server is listening on it; stop that one or choose another path")
      if (probed === "refused") await fs.rm(socketPath, { force: true })
    },
    catch: (error) => unixSocketError(socketPath, error)
  })

/**
 * Binds the unix socket so that it is never reachable with another mode than 0770: the socket needs no key, and a
 * connection made while it had the umask's mode (0777 under umask 0) would keep its access after a chmod. So it is
 * bound in a fresh directory of its own (mode 0700), given its mode there, then hard-linked into place (which, as a
 * bind does, fails when something took the path meanwhile, never replacing it). The socket is removed when the
 * scope closes, if it is still ours. A temporary path is 12 characters more than the socket's directory; a unix
 * socket path is at most 107 bytes in all.
 */
const bindUnixSocket = (server: grpc.Server, socketPath: string) =>
  Effect.gen(function* () {
    const linked = yield* Effect.acquireUseRelease(
      Effect.tryPromise({
        try: () => fs.mkdtemp(path.join(path.dirname(socketPath), ".gh-")),
        catch: (error) => unixSocketError(socketPath, error)
      }),
      (privateDir) => {
        const privatePath = path.join(privateDir, "s")
        return Effect.andThen(
          bind(server, `unix:${privatePath}`, grpc.ServerCredentials.createInsecure()),
          Effect.tryPromise({
            try: async () => {
              await fs.chmod(privatePath, 0o770)
              await fs.link(privatePath, socketPath)
              return fs.lstat(socketPath)
            },
            catch: (error) => unixSocketError(socketPath, error)
          })
        )
      },
      (privateDir) => Effect.promise(() => fs.rm(privateDir, { recursive: true, force: true }))
    )
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        const current = await fs.lstat(socketPath).catch(() => undefined)
        if (current !== undefined && current.ino === linked.ino && current.dev === linked.dev)
          await fs.rm(socketPath, { force: true })
      })
    )
  })

/** One grpc-js server with the AuthService (authenticated as given), health checking and reflection. */
const makeServer = Effect.fnUntraced(function* (options: GrpcServerOptions, authenticate: CallAuthenticator) {
  const context = yield* Effect.context<AuthRequests | Authentication>()
  const stopping = yield* Deferred.make<never, ServerShuttingDown>()
  const limits = makeCallLimits({ ...defaultGrpcLimits, ...options.limits })
  const server = new grpc.Server({
    "grpc.max_receive_message_length": options.maxRequestBytes ?? 64 * 1024,
    "grpc.max_send_message_length": options.maxMessageBytes ?? 4 * 1024 * 1024,
    // grpc-js leaves these unbounded: streams per connection (as many as one client may have open), and the
    // memory one HTTP/2 session may buffer (MB; Node's own default), past which the connection is closed.
    "grpc.max_concurrent_streams":
      limits.size.callsPerClient + limits.size.streamsPerClient + limits.size.publicStreamsPerClient,
    "grpc-node.max_session_memory": 10,
    // A peer that vanished (power loss, a cut link) stops answering pings: its connection and calls are dropped.
    "grpc.keepalive_time_ms": 30_000,
    "grpc.keepalive_timeout_ms": 10_000,
    // A connection without calls for 5 minutes is closed (clients reconnect on their next call).
    "grpc.max_connection_idle_ms": 300_000
  })
  server.addService(
    loadGatehouseProto().gatehouse.v1.AuthService.service,
    makeAuthServiceHandlers({
      context,
      authenticate,
      requiredScopes: requiredScopes(),
      heartbeatMs: options.heartbeatMs ?? 15_000,
      limits,
      drainTimeoutMs: options.drainTimeoutMs ?? 30_000,
      shuttingDown: Deferred.await(stopping)
    })
  )
  const notServing = addHealthService(server, limits)
  const endReflection = addReflectionService(server, limits)
  // Open streams end first (watches with shutting_down, health watches after NOT_SERVING), then in-flight calls
  // get the grace period.
  yield* Effect.addFinalizer(() =>
    Effect.andThen(
      Effect.all(
        [Deferred.fail(stopping, new ServerShuttingDown()), Effect.sync(notServing), Effect.sync(endReflection)],
        { discard: true }
      ),
      shutdown(server, options.shutdownGraceMs ?? 10_000)
    )
  )
  return { server, limits }
})

/**
 * The gRPC transport as a scoped layer over the same core services as HTTP: the TCP listener (TLS, or plaintext
 * only on loopback or with `insecure: true`) requires an API key; the optional unix socket does not (its file mode
 * is the access control). Closing the scope drains in-flight calls, then stops.
 */
export const layer = (
  options: GrpcServerOptions
): Layer.Layer<GrpcServerAddress, GrpcServerError, AuthRequests | Authentication> =>
  Layer.effect(
    GrpcServerAddress,
    Effect.gen(function* () {
      const address = `${options.host.includes(":") && !options.host.startsWith("[") ? `[${options.host}]` : options.host}:${options.port}`
      // The server's config rules report this at grpc.addr with its position before anything starts; the check
      // stays here for embedders that build these options in code, without a config file.
      const refusal = grpcPlaintextRefusal({
        address,
        host: options.host,
        tls: options.tls !== undefined,
        insecure: options.insecure === true
      })
      if (refusal !== undefined) return yield* new GrpcServerError({ message: refusal })
      let credentials: grpc.ServerCredentials
      if (options.tls !== undefined) {
        const tls = options.tls
        const [cert, key] = yield* Effect.tryPromise({
          try: () => Promise.all([fs.readFile(tls.cert), fs.readFile(tls.key)]),
          catch: (error) => new GrpcServerError({ message: `cannot read the gRPC TLS files: ${String(error)}` })
        })
        credentials = grpc.ServerCredentials.createSsl(null, [{ cert_chain: cert, private_key: key }])
      } else {
        credentials = grpc.ServerCredentials.createInsecure()
      }
      const { server: tcp } = yield* makeServer(options, bearerAuthenticator)
      const context = yield* Effect.context<never>()
      const log = Effect.runForkWith(context)
      const port = yield* listenCapped({
        server: tcp,
        credentials,
        host: options.host,
        port: options.port,
        limits: options.connections ?? defaultGrpcConnectionLimits,
        onRefused: (notice) => log(Effect.logWarning(`gRPC: ${notice}`)),
        onError: (error) => log(Effect.logWarning(`gRPC: the listener on ${address} failed: ${error.message}`))
      }).pipe(
        Effect.mapError(
          (failure) => new GrpcServerError({ message: `cannot listen on ${address}: ${failure.message}` })
        )
      )
      if (options.unixSocket !== undefined) {
        const socketPath = options.unixSocket
        yield* removeStaleSocket(socketPath)
        const { server: local } = yield* makeServer(options, unixSocketAuthenticator)
        yield* bindUnixSocket(local, socketPath)
      }
      return GrpcServerAddress.of({ host: options.host, port, unixSocket: options.unixSocket })
    })
  )
