import { assert, describe, it } from "@effect/vitest"
import { hash as bcryptHash } from "bcryptjs"
import { Effect } from "effect"
import { hashPassword, isSupportedHash, verifyPassword } from "../../src/auth/Passwords.js"

describe("Passwords", () => {
  it.effect("hashes with argon2id and verifies argon2id and bcrypt hashes", () =>
    Effect.gen(function* () {
      const argon = yield* hashPassword("correct horse")
      assert.match(argon, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
      assert.isTrue(yield* verifyPassword(argon, "correct horse"))
      assert.isFalse(yield* verifyPassword(argon, "correct horsf"))
      const bcrypt = yield* Effect.promise(() => bcryptHash("battery staple", 4))
      assert.isTrue(isSupportedHash(bcrypt))
      assert.isTrue(yield* verifyPassword(bcrypt, "battery staple"))
      assert.isFalse(yield* verifyPassword(bcrypt, "battery stapler"))
    })
  )

  it.effect("a malformed or unsupported hash is a mismatch, never an error", () =>
    Effect.gen(function* () {
      for (const hash of [
        "$argon2id$garbage",
        "$2b$04$short",
        "plain",
        "$argon2i$v=19$m=16,t=2,p=1$c2FsdHNhbHQ$aGFzaA"
      ]) {
        assert.isFalse(yield* verifyPassword(hash, "x"), hash)
      }
      assert.isFalse(isSupportedHash("$argon2i$v=19"))
    })
  )
})
