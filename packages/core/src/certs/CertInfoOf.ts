import type { X509Certificate } from "node:crypto"
import type { CertInfo, CertProvider, CertRenewal } from "@gatehouse-edge/contract/domain"
import { daysLeft, isExpiringSoon, lifetimeDays } from "./RenewalPolicy.js"

/**
 * A distinguished name as RFC 2253 writes it (`CN=a.example,O=Example\, Inc.,C=US`, most specific first), which is
 * also what `openssl x509 -nameopt RFC2253` prints. Node lists the attributes one per line, least specific first,
 * already escaped.
 */
export const formatName = (nodeName: string): string =>
  nodeName
    .split("\n")
    .filter((line) => line !== "")
    .reverse()
    .join(",")

/** The entries of Node's `subjectAltName` (`DNS:a, DNS:b, email:x@y`); a value with a comma comes JSON-quoted. */
export const subjectAltNames = (
  san: string | undefined
): ReadonlyArray<{ readonly kind: string; readonly value: string }> =>
  [...(san ?? "").matchAll(/([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g)].map((match) => ({
    kind: match[1]!,
    value: match[2]!.startsWith('"') ? (JSON.parse(match[2]!) as string) : match[2]!
  }))

/** When a certificate is valid, in milliseconds since the epoch. */
export const validityOf = (leaf: X509Certificate) => ({
  notBefore: Date.parse(leaf.validFrom),
  notAfter: Date.parse(leaf.validTo)
})

/**
 * The {@link CertInfo} of a certificate at `now`: names, validity, serial and fingerprint from the leaf; `days_left`
 * and `expiring_soon` against `now` and the renewal policy.
 */
export const certInfoOf = (options: {
  readonly name: string
  readonly provider: CertProvider
  readonly leaf: X509Certificate
  readonly now: number
  readonly renewBeforeMs: number
  readonly renewal: CertRenewal | null
}): CertInfo => {
  const { leaf, now } = options
  const { notBefore, notAfter } = validityOf(leaf)
  const names = subjectAltNames(leaf.subjectAltName)
  return {
    name: options.name,
    provider: options.provider,
    subject: formatName(leaf.subject),
    issuer: formatName(leaf.issuer),
    not_before: new Date(notBefore).toISOString(),
    not_after: new Date(notAfter).toISOString(),
    dns_names: names.filter((n) => n.kind === "DNS").map((n) => n.value),
    email_addresses: names.filter((n) => n.kind === "email").map((n) => n.value),
    serial: leaf.serialNumber.toUpperCase(),
    fingerprint_sha256: leaf.fingerprint256,
    days_left: daysLeft(notAfter, now),
    lifetime_days: lifetimeDays(notBefore, notAfter),
    expiring_soon: isExpiringSoon(notBefore, notAfter, options.renewBeforeMs, now),
    renewal: options.renewal
  }
}
