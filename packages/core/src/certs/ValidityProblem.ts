import type { X509Certificate } from "node:crypto"
import { validityOf } from "./CertInfoOf.js"

/** Why a certificate cannot be served at a time: it expired, or it is not valid yet (from `validFrom`). */
export type ValidityProblem =
  | { readonly kind: "expired"; readonly reason: string }
  | { readonly kind: "not_yet_valid"; readonly reason: string; readonly validFrom: number }

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Why `leaf` is outside its validity window at `now` (ms since the epoch), in words for an operator, or `undefined`
 * when clients would accept it then (both ends are part of the window, as in X.509).
 */
export const validityProblemAt = (leaf: X509Certificate, now: number): ValidityProblem | undefined => {
  const { notBefore, notAfter } = validityOf(leaf)
  if (now > notAfter) return { kind: "expired", reason: `the certificate expired on ${iso(notAfter)}` }
  if (now < notBefore) {
    return {
      kind: "not_yet_valid",
      reason: `the certificate is not valid before ${iso(notBefore)}`,
      validFrom: notBefore
    }
  }
  return undefined
}
