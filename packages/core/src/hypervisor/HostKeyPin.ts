import { createHash } from "node:crypto"

/** A parsed host key pin: the exact public key blob, or the SHA-256 of it (an OpenSSH `SHA256:` fingerprint). */
export type HostKeyPin =
  | { readonly _tag: "Key"; readonly keyType: string; readonly blob: Buffer }
  | { readonly _tag: "Fingerprint"; readonly sha256: Buffer }

/** The OpenSSH fingerprint of a public key blob, as `ssh-keygen -lf` prints it: `SHA256:` and unpadded base64. */
export const fingerprintOf = (blob: Uint8Array): string =>
  `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`

// The key type is repeated inside the blob (an SSH string: 4-byte big-endian length, then the name); a line whose
// two disagree is corrupt, not merely a different key.
const typeInBlob = (blob: Buffer): string | undefined => {
  if (blob.length < 4) return undefined
  const length = blob.readUInt32BE(0)
  return length > 0 && 4 + length <= blob.length ? blob.subarray(4, 4 + length).toString("latin1") : undefined
}

const base64 = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * Parses a pin: a public key line (`ssh-ed25519 AAAA… [comment]`) or `SHA256:<base64>` (padding optional).
 * `undefined` when it is neither; configuration validation reports that before any connection is attempted.
 */
export const parseHostKeyPin = (pin: string): HostKeyPin | undefined => {
  const text = pin.trim()
  if (text.startsWith("SHA256:")) {
    const encoded = text.slice("SHA256:".length)
    if (!base64.test(encoded)) return undefined
    const sha256 = Buffer.from(encoded, "base64")
    return sha256.length === 32 ? { _tag: "Fingerprint", sha256 } : undefined
  }
  const [keyType, encoded] = text.split(/\s+/)
  if (keyType === undefined || encoded === undefined || !base64.test(encoded)) return undefined
  const blob = Buffer.from(encoded, "base64")
  return typeInBlob(blob) === keyType ? { _tag: "Key", keyType, blob } : undefined
}

/** Whether the presented key blob is the pinned one. */
export const pinMatches = (pin: HostKeyPin, presented: Uint8Array): boolean =>
  pin._tag === "Key"
    ? Buffer.compare(pin.blob, presented) === 0
    : Buffer.compare(pin.sha256, createHash("sha256").update(presented).digest()) === 0

/** How the pin reads in an error message: always as a fingerprint, so it compares directly with the presented one. */
export const describePin = (pin: HostKeyPin): string =>
  pin._tag === "Key" ? fingerprintOf(pin.blob) : `SHA256:${pin.sha256.toString("base64").replace(/=+$/, "")}`

/**
 * The host key algorithms to offer for a pin: a key pin names its type, so the server must present that key (a
 * server with several host keys would otherwise present whichever the client prefers and fail the comparison).
 * A fingerprint pin does not say, so ssh2's default order applies (ed25519 first).
 */
export const hostKeyAlgorithmsFor = (pin: HostKeyPin): ReadonlyArray<string> | undefined => {
  if (pin._tag === "Fingerprint") return undefined
  return pin.keyType === "ssh-rsa" ? ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"] : [pin.keyType]
}
