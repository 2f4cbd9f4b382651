import * as https from "node:https"
import type { Socket } from "node:net"
import { rootCertificates } from "node:tls"
import * as Effect from "effect/Effect"
import { type AcmeModule, acmeModule } from "./AcmeClientModule.js"

// acme-client sends every request through one axios instance it exports for configuration (its README: "exposes
// the client instance through `.axios`"). Gatehouse adds one request interceptor that applies, per directory
// origin, what Gatehouse configured for that directory: the extra CA it trusts (never turning verification off), a
// request timeout, and no retries of its own (Gatehouse's scheduler backs off on its clock; acme-client's retries
// would sleep 5 to 25 s of wall-clock time per request against a server that is down). acme-client's error
// interceptor turns a request that got no response at all into a TypeError (it reads `response.config` of an
// undefined response), losing why; the agent below keeps the last connection error per origin for `networkErrorOf`.

interface OriginSettings {
  readonly agent: https.Agent
  readonly users: number
}

const origins = new Map<string, OriginSettings>()
const networkErrors = new Map<string, string>()
const requestTimeoutMs = 30_000
let installed = false

const install = (acme: AcmeModule) => {
  if (installed) return
  installed = true
  acme.axios.interceptors.request.use((config) => {
    const url = config.url === undefined ? undefined : URL.parse(config.url, config.baseURL)
    const settings = url === null || url === undefined ? undefined : origins.get(url.origin)
    if (settings === undefined) return config
    const mutable = config as typeof config & { retryAttempt?: number }
    mutable.httpsAgent = settings.agent
    mutable.timeout = requestTimeoutMs
    // acme-client counts attempts in the request config and stops once the count passes its maximum.
    mutable.retryAttempt = Number.MAX_SAFE_INTEGER - 1
    return mutable
  })
}

/** An agent trusting `caPem` next to the system's roots, which records why a connection failed (or that one worked). */
const recordingAgent = (origin: string, caPem: string | undefined) => {
  const agent = new https.Agent({
    keepAlive: false,
    ...(caPem === undefined ? {} : { ca: [...rootCertificates, caPem] })
  })
  const create = agent.createConnection.bind(agent) as (...args: Array<unknown>) => Socket
  agent.createConnection = ((...args: Array<unknown>) => {
    const socket = create(...args)
    socket.once("error", (error: NodeJS.ErrnoException) =>
      networkErrors.set(origin, error.code === undefined ? error.message : `${error.code}: ${error.message}`)
    )
    socket.once("secureConnect", () => networkErrors.delete(origin))
    return socket
  }) as typeof agent.createConnection
  return agent
}

/**
 * Applies Gatehouse's settings to every request acme-client makes to `directory`'s origin while the scope is open:
 * `caPem` is trusted next to the system's roots.
 */
export const useDirectory = (directory: string, caPem: string | undefined) =>
  Effect.acquireRelease(
    Effect.map(acmeModule, (acme) => {
      install(acme)
      const origin = new URL(directory).origin
      const current = origins.get(origin)
      const agent = current?.agent ?? recordingAgent(origin, caPem)
      origins.set(origin, { agent, users: (current?.users ?? 0) + 1 })
      return origin
    }),
    (origin) =>
      Effect.sync(() => {
        const current = origins.get(origin)
        if (current === undefined) return
        if (current.users <= 1) {
          origins.delete(origin)
          current.agent.destroy()
        } else origins.set(origin, { ...current, users: current.users - 1 })
      })
  )

/** Why the last request to `directory`'s origin got no response (refused, timed out, TLS not trusted), if it did not. */
export const networkErrorOf = (directory: string): string | undefined => networkErrors.get(new URL(directory).origin)
