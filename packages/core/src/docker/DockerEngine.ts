import * as net from "node:net"
import type { Readable } from "node:stream"
import { connect as tlsConnect } from "node:tls"
import { DockerFailed, engineCallTimeoutMs, engineListTimeoutMs } from "@gatehouse-edge/contract/domain"
import type Dockerode from "dockerode"
import * as Effect from "effect/Effect"
import type { DockerHostConfig } from "../config/ConfigSections.js"
import { SecretUnreadable } from "../config/ReadSecret.js"
import { readTextFile } from "../config/ReadTextFile.js"
import { lazyModule } from "../util/LazyModule.js"
import type { EngineError } from "./Docker.js"
import { engineProbeTimeoutMs, makeEngineAvailability } from "./EngineAvailability.js"
import { EngineTimeout } from "./EngineFailure.js"
import { openEngineStream } from "./EngineHttpStream.js"
import { withoutDockerEnvironment } from "./WithoutDockerEnvironment.js"

// Loaded with the first configured engine: a server without `docker.hosts` never loads it (~25 MiB of RSS).
const dockerode = lazyModule(() => import("dockerode"))

/** One configured engine: its name and a call that maps the engine's failures to typed errors. */
export interface DockerEngine {
  readonly host: string
  /**
   * Runs one dockerode call. An engine that does not answer within `timeoutMs` (default {@link engineCallTimeoutMs})
   * is down, and while it is, every call fails at once with its error until a background probe hears from it. The
   * signal aborts the request when the call is given up: a call that passes it leaves no connection open to an
   * engine that never answers.
   */
  readonly call: <A>(
    f: (docker: Dockerode, signal: AbortSignal) => Promise<A>,
    timeoutMs?: number
  ) => Effect.Effect<A, EngineError>
  /**
   * Opens a long response of the engine (`GET path`, e.g. a log follow) as a paused readable of its body, without
   * node's HTTP client (see `openEngineStream`); failures mapped and backed off as `call`'s are.
   */
  readonly stream: (path: string) => Effect.Effect<Readable, EngineError>
  /** Completes once the engine answers (at once while it does): for what waits for an engine rather than failing. */
  readonly whenUp: Effect.Effect<void>
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

// The engine's call and listing limits are the contract's: clients outwait them (see ServerTimeLimits).
export { engineCallTimeoutMs, engineListTimeoutMs }

/** Whether an engine is still there (a stream of it ended): a ping has nothing to wait for, so bounded as a probe's. */
export const engineStillThere = (engine: DockerEngine): Effect.Effect<void, EngineError> =>
  Effect.asVoid(engine.call((d, signal) => pingOf(d, signal), engineProbeTimeoutMs))

// dockerode's ping takes an abort signal as its other calls do; its types leave the options out.
const pingOf = (docker: Dockerode, signal: AbortSignal): Promise<unknown> =>
  (docker.ping as (options: { readonly abortSignal: AbortSignal }) => Promise<unknown>).call(docker, {
    abortSignal: signal
  })

/**
 * Connects to one engine (`unix:///path`; `tcp://host:port`, with TLS when a `tls` block is set; `https://host:port`,
 * always with TLS, trusting node's roots and NODE_EXTRA_CA_CERTS unless `tls.ca` says otherwise), reading TLS files
 * now. No API version is set: dockerode then calls unversioned paths, which every engine serves at its own current
 * version (Docker 29 refuses anything below 1.44, so a pinned old version would break there). Whether the engine
 * answers is tracked (see `makeEngineAvailability`, whose probe runs in the current scope).
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
  // `https:` is TLS by its name, with or without files; `tcp:` and `http:` only with a `tls` block.
  const secure = url.protocol === "https:" || tls !== undefined
  const port = Number(url.port || (secure ? 2376 : 2375))
  const ca = yield* read("ca", tls?.ca)
  const cert = yield* read("cert", tls?.cert)
  const key = yield* read("key", tls?.key)
  const { default: DockerodeClient } = yield* dockerode
  const docker = withoutDockerEnvironment(() =>
    url.protocol === "unix:"
      ? new DockerodeClient({ socketPath: decodeURIComponent(url.pathname) })
      : new DockerodeClient({
          host: url.hostname,
          port,
          protocol: secure ? "https" : "http",
          ...(ca === undefined ? {} : { ca }),
          ...(cert === undefined ? {} : { cert }),
          ...(key === undefined ? {} : { key })
        })
  )
  // The same engine, for `stream`: a connection of its own per stream, as dockerode would open for it.
  // (`tcp://[::1]:2376` has the hostname `[::1]`; sockets take the address without its brackets.)
  const tcpHost = url.hostname.replace(/^\[(.*)\]$/, "$1")
  const connect =
    url.protocol === "unix:"
      ? () => net.connect({ path: decodeURIComponent(url.pathname) })
      : !secure
        ? () => net.connect({ host: tcpHost, port })
        : () =>
            tlsConnect({
              host: tcpHost,
              port,
              ...(ca === undefined ? {} : { ca }),
              ...(cert === undefined ? {} : { cert }),
              ...(key === undefined ? {} : { key })
            })
  const host = config.name
  const availability = makeEngineAvailability({
    host,
    // Any answer will do, an error status too: the engine is there.
    ping: Effect.tryPromise({ try: (signal) => pingOf(docker, signal), catch: (error) => error }).pipe(
      Effect.catchIf(
        (error) => engineStatus(error) !== undefined,
        () => Effect.void
      )
    ),
    driverText: engineMessage,
    scope: yield* Effect.scope
  })

  const attempt = <A>(effect: Effect.Effect<A, unknown>, timeoutMs: number): Effect.Effect<A, EngineError> =>
    Effect.suspend(() => {
      // Down: the probe decides when it is back; no call waits on it meanwhile.
      const down = availability.down()
      if (down !== undefined) return Effect.fail(down)
      return effect.pipe(
        Effect.timeoutOrElse({
          duration: timeoutMs,
          orElse: () => Effect.fail(new EngineTimeout({ message: `no answer within ${timeoutMs / 1000} s` }))
        }),
        Effect.tap(() => availability.answered),
        Effect.catch((error): Effect.Effect<never, EngineError> => {
          const status = engineStatus(error)
          if (status !== undefined) {
            return Effect.andThen(
              availability.answered,
              Effect.fail(new DockerFailed({ host, status, detail: engineMessage(error) }))
            )
          }
          // No answer at all: the engine is down. The caller hears which engine and the kind of failure; the
          // driver's text, which names the socket path or address, is for the server's log.
          return Effect.flatMap(availability.noAnswer(error), Effect.fail)
        })
      )
    })
  const call = <A>(
    f: (docker: Dockerode, signal: AbortSignal) => Promise<A>,
    timeoutMs = engineCallTimeoutMs
  ): Effect.Effect<A, EngineError> =>
    attempt(Effect.tryPromise({ try: (signal) => f(docker, signal), catch: (error) => error }), timeoutMs)
  // Bounded until the response starts; the body then flows for as long as the caller reads it.
  const stream = (path: string) => attempt(openEngineStream(connect, path), engineCallTimeoutMs)
  return { host, call, stream, whenUp: availability.whenUp } satisfies DockerEngine
})
