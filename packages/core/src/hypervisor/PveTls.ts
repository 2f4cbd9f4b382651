import * as https from "node:https"
import type * as net from "node:net"
import * as tls from "node:tls"
import { normalizeFingerprint } from "./TlsFingerprint.js"

/** How the API's certificate is checked: a CA, a pinned SHA-256 fingerprint, the system CAs, or (explicitly) not. */
export interface PveTlsOptions {
  readonly fingerprint: string | undefined
  /** The CA certificate(s), PEM, already read from `ca_file`. */
  readonly ca: string | undefined
  readonly insecure: boolean
}

/** The server's certificate is not the pinned one: a refusal of that server, not a failure to reach it. */
export class PinnedCertificateMismatch extends Error {
  constructor(
    readonly expected: string,
    readonly presented: string
  ) {
    super(`TLS certificate fingerprint mismatch: expected ${expected}, got ${presented}`)
  }
}

/**
 * An HTTPS agent that checks the server's certificate before a request is written to the socket. With a pinned
 * fingerprint the chain is not verified (PVE's certificate is signed by the cluster's own CA) but the leaf must be
 * exactly the pinned one; the socket is handed to the request only after that check, so no credential is ever
 * sent to an impostor.
 */
export const makePveAgent = (options: PveTlsOptions, maxSockets: number): https.Agent => {
  const pinned = options.fingerprint === undefined ? undefined : normalizeFingerprint(options.fingerprint)
  const agentOptions: https.AgentOptions = {
    keepAlive: true,
    maxSockets,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    rejectUnauthorized: pinned === undefined && !options.insecure
  }
  if (pinned === undefined) return new https.Agent(agentOptions)
  const agent = new https.Agent(agentOptions)
  // `createConnection` may answer through its callback: the request waits for the socket until the pin matched.
  agent.createConnection = ((
    connectOptions: tls.ConnectionOptions,
    done: (error: Error | null, socket?: net.Socket) => void
  ) => {
    const socket = tls.connect({ ...connectOptions, rejectUnauthorized: false })
    const onError = (error: Error) => done(error)
    socket.once("error", onError)
    socket.once("secureConnect", () => {
      socket.off("error", onError)
      const presented = socket.getPeerCertificate().fingerprint256
      if (presented === pinned) return done(null, socket)
      socket.destroy()
      done(new PinnedCertificateMismatch(pinned, presented ?? "none"))
    })
    return undefined
  }) as unknown as https.Agent["createConnection"]
  return agent
}
