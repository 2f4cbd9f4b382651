import * as Effect from "effect/Effect"
import { lazyModule } from "../util/LazyModule.js"

// Loaded when a password is first checked or hashed: a server without local users never loads them.
const argon2 = lazyModule(() => import("@node-rs/argon2"))
const bcrypt = lazyModule(() => import("bcryptjs"))

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
    ? Effect.flatMap(argon2, (m) => Effect.promise(() => m.verify(hash, password).catch(() => false)))
    : isBcrypt(hash)
      ? Effect.flatMap(bcrypt, (m) => Effect.promise(() => m.compare(password, hash).catch(() => false)))
      : Effect.succeed(false)

/**
 * An argon2id hash of `password` with the library's defaults, which are OWASP's recommendation (19 MiB, 2
 * iterations, 1 lane): what `gatehouse hash-password` prints for `auth.users[].password_hash`.
 */
export const hashPassword = (password: string): Effect.Effect<string> =>
  Effect.flatMap(argon2, (m) => Effect.promise(() => m.hash(password, { algorithm: ARGON2ID })))
