import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"
import { CertProvider } from "./Certificates.js"

/**
 * A configured certificate that is not available, and why: the problem of its files' last load, or why it was not
 * obtained from its ACME CA (its last error and the next attempt).
 */
export const UnavailableCertificate = Schema.Struct({
  name: Schema.String,
  provider: CertProvider,
  problem: Schema.String
}).annotate({ identifier: "UnavailableCertificate" })
export type UnavailableCertificate = typeof UnavailableCertificate.Type

/**
 * No certificate is available (404), or none of this name (`certificate`). With certificates configured but none
 * available, `unavailable` names each with its problem, so the answer says what to fix rather than only "none".
 */
export class CertificateNotFound extends ApiError<CertificateNotFound>()("CertificateNotFound", {
  code: "not_found",
  fields: {
    certificate: Schema.optionalKey(Schema.String),
    unavailable: Schema.optionalKey(Schema.Array(UnavailableCertificate))
  },
  message: (e) =>
    e.certificate !== undefined
      ? `certificate "${e.certificate}" not found`
      : e.unavailable === undefined || e.unavailable.length === 0
        ? "no certificate available"
        : `no certificate available: ${e.unavailable.map((u) => `${u.name} (${u.provider}): ${u.problem}`).join("; ")}`
}) {}

/**
 * A renewal was asked for, but no certificate (or not the one named) is managed by ACME (503): file certificates
 * are renewed by replacing their files, which Gatehouse watches.
 */
export class AcmeNotConfigured extends ApiError<AcmeNotConfigured>()("AcmeNotConfigured", {
  code: "unavailable",
  fields: { certificate: Schema.optionalKey(Schema.String) },
  message: (e) =>
    e.certificate === undefined
      ? "no certificate is managed by ACME (acme.certificates); file certificates are reloaded when their files change"
      : `certificate "${e.certificate}" comes from files, not ACME: replace its files to renew it (they are watched)`
}) {}

/** A renewal is already running (409); one runs at a time. */
export class RenewalInProgress extends ApiError<RenewalInProgress>()("RenewalInProgress", {
  code: "conflict",
  fields: {},
  message: () => "a certificate renewal is already running"
}) {}

/** The ACME server could not be reached (502: the renewal failed upstream; the old certificate stays). */
export class AcmeUnreachable extends ApiError<AcmeUnreachable>()("AcmeUnreachable", {
  code: "bad_gateway",
  fields: { directory: Schema.String, detail: Schema.String },
  message: (e) => `ACME server ${e.directory} is unreachable: ${e.detail}`
}) {}

/** The ACME server refused or failed an order (502); `detail` is its problem document's text. */
export class AcmeFailed extends ApiError<AcmeFailed>()("AcmeFailed", {
  code: "bad_gateway",
  fields: { certificate: Schema.String, detail: Schema.String },
  message: (e) => `ACME order for certificate "${e.certificate}" failed: ${e.detail}`
}) {}

/** A challenge for one name could not be served or did not validate (502), naming the name and why. */
export class AcmeChallengeFailed extends ApiError<AcmeChallengeFailed>()("AcmeChallengeFailed", {
  code: "bad_gateway",
  fields: {
    certificate: Schema.String,
    domain: Schema.String,
    challenge: Schema.Literals(["http-01", "dns-01"]),
    detail: Schema.String
  },
  message: (e) => `${e.challenge} challenge for ${e.domain} (certificate "${e.certificate}") failed: ${e.detail}`
}) {}
