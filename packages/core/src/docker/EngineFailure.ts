import * as Data from "effect/Data"
import * as Predicate from "effect/Predicate"

/** An engine call that had no answer within its bound (see `DockerEngine.call`). */
export class EngineTimeout extends Data.TaggedError("EngineTimeout")<{ readonly message: string }> {}

/** A connection to an engine that closed before an answer, or carried something other than HTTP. */
export class EngineNoAnswer extends Data.TaggedError("EngineNoAnswer")<{
  readonly kind: "closed" | "not_http"
  readonly message: string
}> {}

// Node's socket error codes, by the kind of failure they are.
const byCode = new Map<string, string>([
  ["ECONNREFUSED", "connection refused"],
  ["EACCES", "permission denied"],
  ["EPERM", "permission denied"],
  ["ENOENT", "no socket at its address"],
  ["ENOTFOUND", "its host name does not resolve"],
  ["EAI_AGAIN", "its host name does not resolve"],
  ["EHOSTUNREACH", "host unreachable"],
  ["ENETUNREACH", "host unreachable"],
  ["EHOSTDOWN", "host unreachable"],
  ["ETIMEDOUT", "connection timed out"],
  ["ECONNRESET", "the connection was cut"],
  ["ECONNABORTED", "the connection was cut"],
  ["EPIPE", "the connection was cut"]
])

// OpenSSL's certificate verification codes (node's `tls` errors carry them as `code`).
const untrustedCertificate = new RegExp(
  `^(${[
    "ERR_TLS_CERT_ALTNAME_INVALID",
    "DEPTH_ZERO_SELF_SIGNED_CERT",
    "SELF_SIGNED_CERT_IN_CHAIN",
    "UNABLE_TO_\\w+",
    "CERT_\\w+",
    "HOSTNAME_MISMATCH",
    "INVALID_CA"
  ].join("|")})$`
)
const tlsFailure = /^(ERR_SSL_\w+|ERR_TLS_\w+|EPROTO)$/

/**
 * Why an engine gave no answer, as an API caller may read it: the kind of failure (refused, permission denied,
 * timed out, TLS, ...), never the driver's text, which names the socket path or address it tried
 * (`connect ENOENT /var/run/docker.sock`) and goes to the server's log only. One wording per kind also keeps the
 * route problem an engine that is down makes (a `config/error` event, compared to avoid repeats) the same from one
 * failed retry to the next.
 */
export const unreachableReason = (error: unknown): string => {
  if (error instanceof EngineTimeout) return `timed out: ${error.message}`
  if (error instanceof EngineNoAnswer) {
    return error.kind === "closed"
      ? "the connection closed before it answered"
      : "it answered something other than HTTP"
  }
  const code = Predicate.hasProperty(error, "code") && Predicate.isString(error.code) ? error.code : ""
  if (untrustedCertificate.test(code)) return "TLS: its certificate is not trusted"
  if (tlsFailure.test(code)) return "TLS handshake failed"
  return byCode.get(code) ?? "no connection"
}
