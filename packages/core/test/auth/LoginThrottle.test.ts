import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { makeLoginThrottle } from "../../src/auth/LoginThrottle.js"

const policy = { perAddress: 3, perUser: 2, refillMs: 10_000, maxEntries: 100 }

describe("LoginThrottle", () => {
  it.effect("lets a burst of attempts per address through, then says how long to wait, then refills", () =>
    Effect.gen(function* () {
      const throttle = makeLoginThrottle(policy)
      for (let i = 0; i < 3; i++) assert.isUndefined(yield* throttle.attempt("10.0.0.1", `user${i}`))
      assert.strictEqual(yield* throttle.attempt("10.0.0.1", "user9"), 10)
      assert.isUndefined(yield* throttle.attempt("10.0.0.2", "user9"), "another address has its own allowance")
      yield* TestClock.adjust("4 seconds")
      assert.strictEqual(yield* throttle.attempt("10.0.0.1", "user9"), 6)
      yield* TestClock.adjust("6 seconds")
      assert.isUndefined(yield* throttle.attempt("10.0.0.1", "user9"), "one attempt came back")
      assert.strictEqual(yield* throttle.attempt("10.0.0.1", "user9"), 10)
    })
  )

  it.effect("locks a user name after its failures, whichever addresses they came from", () =>
    Effect.gen(function* () {
      const throttle = makeLoginThrottle(policy)
      // Each attempt counts until it succeeds: these two fail.
      for (const address of ["10.0.0.1", "10.0.0.2"]) assert.isUndefined(yield* throttle.attempt(address, "alice"))
      assert.strictEqual(yield* throttle.attempt("10.0.0.3", "alice"), 10, "alice is locked from a third address")
      assert.isUndefined(yield* throttle.attempt("10.0.0.3", "bob"), "other users are not")
      yield* TestClock.adjust("10 seconds")
      assert.isUndefined(yield* throttle.attempt("10.0.0.3", "alice"))
    })
  )

  it.effect("successful attempts do not count against the user name", () =>
    Effect.gen(function* () {
      const throttle = makeLoginThrottle({ ...policy, perAddress: 100 })
      for (let i = 0; i < 10; i++) {
        assert.isUndefined(yield* throttle.attempt("10.0.0.1", "alice"))
        yield* throttle.succeeded("alice")
      }
    })
  )

  it.effect("attempts made at once, before any has failed, get no more than the user name's allowance", () =>
    Effect.gen(function* () {
      const throttle = makeLoginThrottle(policy)
      const answers = yield* Effect.forEach(["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"], (address) =>
        throttle.attempt(address, "alice")
      )
      assert.deepStrictEqual(answers, [undefined, undefined, 10, 10])
    })
  )

  it.effect("refused attempts under made-up names do not push a locked user name's bucket out", () =>
    Effect.gen(function* () {
      const throttle = makeLoginThrottle({ ...policy, perAddress: 1, perUser: 1, maxEntries: 3 })
      assert.isUndefined(yield* throttle.attempt("10.0.0.1", "victim"))
      assert.isUndefined(yield* throttle.attempt("10.0.0.9", "name0"))
      for (let i = 1; i <= 10; i++) assert.strictEqual(yield* throttle.attempt("10.0.0.9", `name${i}`), 10)
      assert.strictEqual(yield* throttle.attempt("10.0.0.2", "victim"), 10, "the victim is still locked")
    })
  )

  it.effect("keeps at most maxEntries buckets (a flood of addresses cannot grow memory)", () =>
    Effect.gen(function* () {
      const throttle = makeLoginThrottle({ ...policy, perAddress: 1, maxEntries: 2 })
      // A user name each: failures under one name would lock it, which is not what this is about.
      yield* throttle.attempt("a", "u1")
      assert.strictEqual(yield* throttle.attempt("a", "u2"), 10, "a is out of attempts")
      yield* throttle.attempt("b", "u3")
      yield* throttle.attempt("c", "u4")
      assert.isUndefined(yield* throttle.attempt("a", "u5"), "a was forgotten, so it starts over")
    })
  )

  it.effect("counts the addresses of one IPv6 /64 as one client, for passwords and OIDC starts alike", () =>
    Effect.gen(function* () {
      const throttle = makeLoginThrottle(policy)
      for (let i = 1; i <= 2; i++) assert.isUndefined(yield* throttle.attempt(`2001:db8:0:7::${i}`, `user${i}`))
      assert.isUndefined(yield* throttle.attemptFrom("2001:db8:0:7:ffff::3"))
      assert.strictEqual(yield* throttle.attemptFrom("2001:db8:0:7::4"), 10, "a fourth address of the /64 waits")
      assert.strictEqual(yield* throttle.attempt("2001:db8:0:7::5", "user5"), 10)
      assert.isUndefined(yield* throttle.attemptFrom("2001:db8:0:8::1"), "the next /64 is another client")
    })
  )
})
