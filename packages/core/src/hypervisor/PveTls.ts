import * as https from "node:https"
import type * as net from "node:net"
import * as tls from "node:tls"
import * as Predicate from "effect/Predicate"
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
 * The server's certificate failed verification against the configured CA (or the system's CAs): signed by another
 * CA, issued for another name, expired. Like a pin mismatch a refusal of that server, which retrying will not change.
 */
export class UntrustedCertificate extends Error {
  constructor(
    readonly host: string,
    readonly trustedBy: "ca_file" | "system",
    readonly detail: string
  ) {
    super(`TLS certificate of ${host} not trusted: ${detail}`)
  }
}

// Node 24 adds a hint about its own command-line flag to a verification failure ("self-signed certificate; if the
// root CA is installed locally, try running Node.js with --use-system-ca"): Gatehouse's remedy is `tls.ca_file` or
// `tls.fingerprint`, which the error's message says, so the verification's own words are kept, the same on every Node.
const withoutNodeHint = (message: string) => message.replace(/; if the root CA is installed locally\b.*$/s, "")

/**
 * An HTTPS agent that checks the server's certificate before a request is written to the socket. With a pinned
 * fingerprint the chain is not verified (PVE's certificate is signed by the cluster's own CA) but the leaf must be
 * exactly the pinned one; otherwise the chain and name are verified against the CA file (or the system's CAs), and a
 * certificate that fails is told apart from a connection that failed. The socket is handed to the request only after
 * the check, so no credential is ever sent to an impostor.
 */
export const makePveAgent = (options: PveTlsOptions, maxSockets: number): https.Agent => {
  const pinned = options.fingerprint === undefined ? undefined : normalizeFingerprint(options.fingerprint)
  const verify = pinned === undefined && !options.insecure
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    rejectUnauthorized: verify
  })
  if (pinned === undefined && !verify) return agent
  const trustedBy = options.ca !== undefined ? "ca_file" : "system"
  // `createConnection` may answer through its callback: the request waits for the socket until the check passed.
  agent.createConnection = ((
    connectOptions: tls.ConnectionOptions,
    done: (error: Error | null, socket?: net.Socket) => void
  ) => {
    const socket = tls.connect(pinned === undefined ? connectOptions : { ...connectOptions, rejectUnauthorized: false })
    const onError = (error: Error) =>
      done(
        // Node sets `authorizationError` (null until then) only once the handshake completed and the certificate was
        // refused, just before it destroys the socket with that refusal: a connection that failed (refused, reset)
        // never has it.
        verify && Predicate.isNotNullish(socket.authorizationError)
          ? new UntrustedCertificate(
              connectOptions.servername || connectOptions.host || "?",
              trustedBy,
              withoutNodeHint(error.message)
            )
          : error
      )
    socket.once("error", onError)
    socket.once("secureConnect", () => {
      socket.off("error", onError)
      if (pinned === undefined) return done(null, socket)
      const presented = socket.getPeerCertificate().fingerprint256
      if (presented === pinned) return done(null, socket)
      socket.destroy()
      done(new PinnedCertificateMismatch(pinned, presented ?? "none"))
    })
    return undefined
  }) as unknown as https.Agent["createConnection"]
  return agent
}
