import { hash as argon2Hash, verify as argon2Verify } from "@node-rs/argon2"
import { compare as bcryptCompare } from "bcryptjs"
import { Effect } from "effect"

// `Algorithm.Argon2id` of @node-rs/argon2 is an ambient const enum, which this build cannot read; its value is 2.
const ARGON2ID = 2

const isArgon2id = (hash: string) => hash.startsWith("$argon2id$")
const isBcrypt = (hash: string) => /^\$2[aby]\$/.test(hash)

/** Whether a stored password hash is of a kind this server verifies: argon2id or bcrypt. */
export const isSupportedHash = (hash: string): boolean => isArgon2id(hash) || isBcrypt(hash)

/**
 * Whether `password` matches `hash` (argon2id or bcrypt). Both libraries compare in constant time and hash off the
 * event loop (argon2 on libuv's thread pool, bcryptjs in slices); a malformed hash is a mismatch, never a crash.
 */
export const verifyPassword = (hash: string, password: string): Effect.Effect<boolean> =>
  isArgon2id(hash)
    ? Effect.promise(() => argon2Verify(hash, password).catch(() => false))
    : isBcrypt(hash)
      ? Effect.promise(() => bcryptCompare(password, hash).catch(() => false))
      : Effect.succeed(false)

/**
 * An argon2id hash of `password` with the library's defaults, which are OWASP's recommendation (19 MiB, 2
 * iterations, 1 lane): what `gatehouse hash-password` prints for `auth.users[].password_hash`.
 */
export const hashPassword = (password: string): Effect.Effect<string> =>
  Effect.promise(() => argon2Hash(password, { algorithm: ARGON2ID }))
