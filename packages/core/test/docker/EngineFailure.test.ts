import { assert, describe, it } from "@effect/vitest"
import { EngineNoAnswer, EngineTimeout, unreachableReason } from "../../src/docker/EngineFailure.js"

/** A socket error as node makes one: the driver's text, and its code. */
const socketError = (code: string, message: string) => Object.assign(new Error(message), { code })

describe("unreachableReason: the kind of failure, never the driver's text", () => {
  it("names each kind in fixed words, without the path or address the driver's text carries", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [socketError("ENOENT", "connect ENOENT /var/run/docker.sock"), "no socket at its address"],
      [socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:2375"), "connection refused"],
      [socketError("EACCES", "connect EACCES /var/run/docker.sock"), "permission denied"],
      [socketError("EPERM", "connect EPERM /var/run/docker.sock"), "permission denied"],
      [socketError("ETIMEDOUT", "connect ETIMEDOUT 10.0.0.5:2376"), "connection timed out"],
      [socketError("EHOSTUNREACH", "connect EHOSTUNREACH 10.0.0.5:2376"), "host unreachable"],
      [socketError("ENOTFOUND", "getaddrinfo ENOTFOUND nas.internal"), "its host name does not resolve"],
      [socketError("ECONNRESET", "socket hang up"), "the connection was cut"],
      [
        socketError("UNABLE_TO_VERIFY_LEAF_SIGNATURE", "unable to verify the first certificate"),
        "TLS: its certificate is not trusted"
      ],
      [socketError("DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate"), "TLS: its certificate is not trusted"],
      [
        socketError("ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames: IP: 10.0.0.5"),
        "TLS: its certificate is not trusted"
      ],
      [
        socketError("ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED", "ssl3_read_bytes:tlsv13 alert certificate required"),
        "TLS handshake failed"
      ],
      [
        socketError("EPROTO", "write EPROTO 140...:error:0A00010B:SSL routines:ssl3_get_record:wrong version number"),
        "TLS handshake failed"
      ],
      [new EngineTimeout({ message: "no answer within 30 s" }), "timed out: no answer within 30 s"],
      [
        new EngineNoAnswer({ kind: "closed", message: "the engine closed the connection before answering" }),
        "the connection closed before it answered"
      ],
      [
        new EngineNoAnswer({ kind: "not_http", message: "not an HTTP response: SSH-2.0-OpenSSH_9.2" }),
        "it answered something other than HTTP"
      ],
      [new Error("something at /run/secret/place"), "no connection"],
      ["a string", "no connection"],
      [null, "no connection"]
    ]
    assert.deepStrictEqual(
      cases.map(([error]) => unreachableReason(error)),
      cases.map(([, reason]) => reason)
    )
  })
})
