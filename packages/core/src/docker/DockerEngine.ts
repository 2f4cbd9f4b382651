import * as net from "node:net"
import type { Readable } from "node:stream"
import { connect as tlsConnect } from "node:tls"
import { DockerFailed, DockerHostUnreachable } from "@gatehouse-edge/contract/domain"
import type Dockerode from "dockerode"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { DockerHostConfig } from "../config/ConfigSections.js"
import { SecretUnreadable } from "../config/ReadSecret.js"
import { readTextFile } from "../config/ReadTextFile.js"
import { lazyModule } from "../util/LazyModule.js"
import type { EngineError } from "./Docker.js"
import { EngineTimeout, unreachableReason } from "./EngineFailure.js"
import { openEngineStream } from "./EngineHttpStream.js"

// Loaded with the first configured engine: a server without `docker.hosts` never loads it (~25 MiB of RSS).
const dockerode = lazyModule(() => import("dockerode"))

/** One configured engine: its name and a call that maps the engine's failures to typed errors. */
export interface DockerEngine {
  readonly host: string
  /**
   * Runs one dockerode call; a down engine fails at once during its back-off instead of waiting on the network,
   * and an engine that does not answer within `timeoutMs` (default {@link engineCallTimeoutMs}) counts as down.
   */
  readonly call: <A>(f: (docker: Dockerode) => Promise<A>, timeoutMs?: number) => Effect.Effect<A, EngineError>
  /**
   * Opens a long response of the engine (`GET path`, e.g. a log follow) as a paused readable of its body, without
   * node's HTTP client (see `openEngineStream`); failures mapped and backed off as `call`'s are.
   */
  readonly stream: (path: string) => Effect.Effect<Readable, EngineError>
}

/** How dockerode reports a failure: an HTTP status and the engine's JSON message, or a socket error code. */
interface DockerodeError {
  readonly statusCode?: number
  readonly json?: { readonly message?: string } | null
  readonly reason?: string
  readonly code?: string
  readonly message?: string
}

/** The engine's own words for a failed call (its JSON `message`), or dockerode's. */
export const engineMessage = (error: unknown): string => {
  const e = error as DockerodeError
  return (e.json?.message ?? e.reason ?? e.message ?? String(error)).trim()
}

/** The HTTP status of a failed engine call, or `undefined` when the engine did not answer at all. */
export const engineStatus = (error: unknown): number | undefined => (error as DockerodeError).statusCode

const backoffInitialMs = 500
const backoffMaxMs = 30_000

/**
 * How long an engine call may go unanswered (dockerode sets no timeout): an engine that accepts connections and
 * never answers (a stuck daemon, a host that drops packets) would otherwise hold every call that lists its
 * containers, on every engine, for good. Long enough for a stop (`t: 10`, then the kill) to answer.
 */
export const engineCallTimeoutMs = 30_000

/**
 * Connects to one engine (`unix:///path`, or `tcp://host:port` with TLS files read now). No API version is set:
 * dockerode then calls unversioned paths, which every engine serves at its own current version (Docker 29 refuses
 * anything below 1.44, so a pinned old version would break there).
 */
export const makeDockerEngine = Effect.fn("DockerEngine.make")(function* (config: DockerHostConfig) {
  const url = new URL(config.url)
  const read = (key: string, file: string | undefined) =>
    file === undefined
      ? Effect.succeed(undefined)
      : readTextFile(file).pipe(
          Effect.mapError(
            (error) =>
              new SecretUnreadable({
                key: `docker.hosts (${config.name}) tls.${key}`,
                path: file,
                reason: error.reason
              })
          )
        )
  const tls = config.tls
  const ca = yield* read("ca", tls?.ca)
  const cert = yield* read("cert", tls?.cert)
  const key = yield* read("key", tls?.key)
  const { default: DockerodeClient } = yield* dockerode
  const docker =
    url.protocol === "unix:"
      ? new DockerodeClient({ socketPath: decodeURIComponent(url.pathname) })
      : new DockerodeClient({
          host: url.hostname,
          port: Number(url.port || (tls === undefined ? 2375 : 2376)),
          protocol: tls === undefined ? "http" : "https",
          ...(ca === undefined ? {} : { ca }),
          ...(cert === undefined ? {} : { cert }),
          ...(key === undefined ? {} : { key })
        })
  // The same engine, for `stream`: a connection of its own per stream, as dockerode would open for it.
  // (`tcp://[::1]:2376` has the hostname `[::1]`; sockets take the address without its brackets.)
  const tcpHost = url.hostname.replace(/^\[(.*)\]$/, "$1")
  const connect =
    url.protocol === "unix:"
      ? () => net.connect({ path: decodeURIComponent(url.pathname) })
      : tls === undefined
        ? () => net.connect({ host: tcpHost, port: Number(url.port || 2375) })
        : () =>
            tlsConnect({
              host: tcpHost,
              port: Number(url.port || 2376),
              ...(ca === undefined ? {} : { ca }),
              ...(cert === undefined ? {} : { cert }),
              ...(key === undefined ? {} : { key })
            })
  const host = config.name
  let failures = 0
  let retryAt = 0
  let lastError: DockerHostUnreachable | undefined
  // The driver's text of the failure last logged: a down engine is logged when it goes down and when why changes,
  // not at every retry.
  let lastLogged: string | undefined

  const attempt = <A>(effect: Effect.Effect<A, unknown>, timeoutMs: number): Effect.Effect<A, EngineError> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      // The same error as long as the engine is down: a text that changed with every read (the time left) made
      // each re-read of the Docker routes a new problem, announced again every 2 s.
      if (lastError !== undefined && now < retryAt) return yield* lastError
      return yield* effect.pipe(
        Effect.timeoutOrElse({
          duration: timeoutMs,
          orElse: () => Effect.fail(new EngineTimeout({ message: `no answer within ${timeoutMs / 1000} s` }))
        }),
        Effect.tap(() =>
          Effect.sync(() => {
            failures = 0
            lastError = undefined
            lastLogged = undefined
          })
        ),
        Effect.catch((error): Effect.Effect<never, EngineError> => {
          const status = engineStatus(error)
          if (status !== undefined) return Effect.fail(new DockerFailed({ host, status, detail: engineMessage(error) }))
          // No answer at all: the engine is down (or the socket is gone); back off before the next try. The caller
          // hears which engine and the kind of failure; the driver's text, which names the socket path or address,
          // is for the server's log.
          return Effect.flatMap(Clock.currentTimeMillis, (at) => {
            failures++
            retryAt = at + Math.min(backoffMaxMs, backoffInitialMs * 2 ** (failures - 1))
            const unreachable = new DockerHostUnreachable({ host, detail: unreachableReason(error) })
            lastError = unreachable
            const driverText = engineMessage(error)
            if (driverText === lastLogged) return Effect.fail(unreachable)
            lastLogged = driverText
            return Effect.andThen(Effect.logWarning(`${unreachable.message} (${driverText})`), Effect.fail(unreachable))
          })
        })
      )
    })
  const call = <A>(
    f: (docker: Dockerode) => Promise<A>,
    timeoutMs = engineCallTimeoutMs
  ): Effect.Effect<A, EngineError> =>
    attempt(Effect.tryPromise({ try: () => f(docker), catch: (error) => error }), timeoutMs)
  // Bounded until the response starts; the body then flows for as long as the caller reads it.
  const stream = (path: string) => attempt(openEngineStream(connect, path), engineCallTimeoutMs)
  return { host, call, stream } satisfies DockerEngine
})
