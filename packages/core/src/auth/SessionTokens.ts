import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"

const mac = (key: Buffer, purpose: string, token: string) =>
  createHmac("sha256", key).update(`${purpose}\u0000${token}`).digest("base64url")

const equal = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/

/**
 * Session cookies and their CSRF tokens, under one server key. The cookie is `<token>.<signature>`: the token is
 * 256 random bits that find the session (by its SHA-256), the signature an HMAC of it, so a forged or mangled cookie
 * is refused without a store lookup. The CSRF token is another HMAC of the token: bound to the session, so a value
 * an attacker planted in the `gatehouse_csrf` cookie never matches.
 */
export const makeSessionTokens = (key: Buffer) => ({
  /** A new session token, its signed cookie value and the token's hash (what is stored). */
  issue: () => {
    const token = randomBytes(32).toString("base64url")
    return { cookie: `${token}.${mac(key, "session", token)}`, sha256: sha256Of(token), token }
  },
  /** The token of a cookie whose signature is right, or `undefined`. */
  verify: (cookie: string): string | undefined => {
    const dot = cookie.indexOf(".")
    const token = cookie.slice(0, dot)
    if (dot < 0 || !TOKEN.test(token)) return undefined
    return equal(cookie.slice(dot + 1), mac(key, "session", token)) ? token : undefined
  },
  /** The CSRF token of a session token. */
  csrfOf: (token: string): string => mac(key, "csrf", token),
  /** Whether `presented` is the CSRF token of `token`. */
  csrfMatches: (token: string, presented: string): boolean => equal(presented, mac(key, "csrf", token))
})

/** Session cookie and CSRF helpers under one key. */
export type SessionTokens = ReturnType<typeof makeSessionTokens>

/** The hex SHA-256 of a token, as stored. */
export const sha256Of = (token: string): string => createHash("sha256").update(token).digest("hex")

/** A random public id (`s_` + 16 URL-safe characters), for listing and revoking without the token. */
export const newPublicId = (prefix: string): string => `${prefix}${randomBytes(12).toString("base64url")}`

/**
 * Keyed fingerprints of password hashes: what a password session keeps to tell, at each use, whether its user's
 * hash has changed since it was signed in, without a second copy of the hash (which can be attacked offline).
 */
export const makePasswordFingerprints = (key: Buffer) => ({
  /** The fingerprint of a password hash. */
  of: (passwordHash: string): string => mac(key, "password-hash", passwordHash),
  /** Whether `fingerprint` is that of `passwordHash` (compared in constant time). */
  matches: (passwordHash: string, fingerprint: string): boolean =>
    equal(fingerprint, mac(key, "password-hash", passwordHash))
})
