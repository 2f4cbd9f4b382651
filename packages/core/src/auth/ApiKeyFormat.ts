import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

const KEY_FORMAT = /^gh_([a-z0-9]{8})_([A-Za-z0-9_-]{32,64})$/

/** The public prefix of a well-formed key `gh_<prefix>_<secret>`, or `undefined` for anything else. */
export const apiKeyPrefix = (key: string): string | undefined => KEY_FORMAT.exec(key)?.[1]

/** The hex SHA-256 of a key, as stored. */
export const sha256Hex = (key: string): string => createHash("sha256").update(key).digest("hex")

/** Whether `key` hashes to `expectedHex`, in time that does not depend on where they differ. */
export const keyMatches = (key: string, expectedHex: string): boolean => {
  const expected = Buffer.from(expectedHex, "hex")
  const actual = createHash("sha256").update(key).digest()
  return expected.length === actual.length && timingSafeEqual(actual, expected)
}

/** A new key, its public prefix and the hash stored of it. */
export interface GeneratedApiKey {
  readonly key: string
  readonly prefix: string
  readonly sha256: string
}

/**
 * A new API key `gh_<prefix>_<secret>`: an 8-character public prefix (to find it) and a 256-bit secret, with the
 * hash to store. The key has full entropy, so a fast hash is enough: there is nothing to brute-force.
 */
export const generateApiKey = (): GeneratedApiKey => {
  const prefix = randomBytes(5).toString("hex").slice(0, 8)
  const key = `gh_${prefix}_${randomBytes(32).toString("base64url").slice(0, 43)}`
  return { key, prefix, sha256: sha256Hex(key) }
}
