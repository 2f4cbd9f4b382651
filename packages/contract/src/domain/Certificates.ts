import * as Schema from "effect/Schema"
import { ErrorCode } from "./ErrorCode.js"

/** Where a certificate comes from: files on disk (watched) or an ACME CA (obtained and renewed by Gatehouse). */
export const CertProvider = Schema.Literals(["file", "acme"]).annotate({ identifier: "CertProvider" })
export type CertProvider = typeof CertProvider.Type

/**
 * The renewal state of an ACME certificate: when Gatehouse tries next, when it last tried, and why that try failed
 * (`null` after a success), so an operator sees why a certificate is not being renewed.
 */
export const CertRenewal = Schema.Struct({
  next_at: Schema.String,
  last_attempt_at: Schema.NullOr(Schema.String),
  last_error: Schema.NullOr(Schema.String)
}).annotate({ identifier: "CertRenewal" })
export type CertRenewal = typeof CertRenewal.Type

/**
 * One available certificate (SPEC §7), read from its leaf: names, validity (RFC 3339), serial (hex, as
 * `openssl x509 -serial` prints it), SHA-256 fingerprint (colon-separated hex). `days_left` is negative once it
 * expired; `expiring_soon` is judged against its lifetime (the last third of it, at most `renew_before`), so a
 * 6-day certificate is not expiring on its first day. `renewal` is `null` for files (Gatehouse does not renew them).
 */
export const CertInfo = Schema.Struct({
  name: Schema.String,
  provider: CertProvider,
  subject: Schema.String,
  issuer: Schema.String,
  not_before: Schema.String,
  not_after: Schema.String,
  dns_names: Schema.Array(Schema.String),
  email_addresses: Schema.Array(Schema.String),
  serial: Schema.String,
  fingerprint_sha256: Schema.String,
  days_left: Schema.Int,
  lifetime_days: Schema.Finite,
  expiring_soon: Schema.Boolean,
  renewal: Schema.NullOr(CertRenewal)
}).annotate({ identifier: "CertInfo" })
export type CertInfo = typeof CertInfo.Type

/** The steps of obtaining a certificate from an ACME CA, in order (`challenge_served`/`validated` once per name). */
export const CertRenewStep = Schema.Literals([
  "order_placed",
  "challenge_served",
  "validated",
  "issued",
  "installed"
]).annotate({ identifier: "CertRenewStep" })
export type CertRenewStep = typeof CertRenewStep.Type

/** A progress line of a renewal: the step, the certificate, the name it concerns, and a sentence. */
export const CertRenewProgress = Schema.Struct({
  progress: Schema.String,
  step: CertRenewStep,
  certificate: Schema.String,
  domain: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "CertRenewProgress" })
export type CertRenewProgress = typeof CertRenewProgress.Type

/** The last frame of a renewal: `ok` with every certificate after it, or the error (its machine code and message). */
export const CertRenewResult = Schema.Struct({
  ok: Schema.Boolean,
  certs: Schema.optionalKey(Schema.Array(CertInfo)),
  error: Schema.optionalKey(Schema.Struct({ code: ErrorCode, message: Schema.String }))
}).annotate({ identifier: "CertRenewResult" })
export type CertRenewResult = typeof CertRenewResult.Type

/** A frame of the `/cert/renew` WebSocket: progress lines, then one result. */
export const CertRenewFrame = Schema.Union([CertRenewProgress, CertRenewResult]).annotate({
  identifier: "CertRenewFrame"
})
export type CertRenewFrame = typeof CertRenewFrame.Type
