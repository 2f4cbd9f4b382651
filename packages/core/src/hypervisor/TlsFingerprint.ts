// Kept apart from PveTls (which loads node:https and node:tls) so config validation can check a pin cheaply.

/** A fingerprint as PVE and OpenSSL print it, normalized: upper-case hex pairs joined by colons. */
export const normalizeFingerprint = (fingerprint: string): string =>
  (
    fingerprint
      .replace(/[^0-9a-fA-F]/g, "")
      .toUpperCase()
      .match(/../g) ?? []
  ).join(":")

/** Why `fingerprint` is not a SHA-256 fingerprint (32 hex pairs), or `undefined` when it is. */
export const fingerprintProblem = (fingerprint: string): string | undefined =>
  /^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$/.test(fingerprint.trim())
    ? undefined
    : "expected a SHA-256 fingerprint: 32 hex pairs, e.g. AB:CD:…"
