import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { checkListFilter, checkNewAuthRequest, checkNewUser } from "../../src/authrequests/AuthRequestInput.js"
import { InvalidArgument } from "../../src/index.js"

// A lone UTF-16 surrogate: JSON's `"\ud800x"` decodes to it. It is no character, and stored as UTF-8 it would read
// back as U+FFFD, so a filter for what was sent would never find the request.
const loneSurrogate = "\ud800x"

/** The field an input check refuses, or undefined when it accepts the input. */
const refusedField = <A>(check: Effect.Effect<A, InvalidArgument>) =>
  Effect.match(check, {
    onFailure: (error) => {
      assert.instanceOf(error, InvalidArgument)
      return error.issues?.[0]?.path.join(".")
    },
    onSuccess: () => undefined
  })

const sshCheck = { src: "10.0.0.1", dst: "web1", local_user: "root" }
const registration = { machine_key: "mk-1", node_key: "nk-1", hostname: "laptop" }

describe("AuthRequestInput: the text a request, a user or a filter carries", () => {
  it.effect("a lone surrogate is refused in every text field, naming the field", () =>
    Effect.gen(function* () {
      for (const field of ["src", "dst", "local_user"] as const) {
        const input = { kind: "ssh_check" as const, ssh_check: { ...sshCheck, [field]: loneSurrogate } }
        assert.strictEqual(yield* refusedField(checkNewAuthRequest(input)), `ssh_check.${field}`)
      }
      for (const field of ["machine_key", "node_key", "hostname"] as const) {
        const input = { kind: "registration" as const, registration: { ...registration, [field]: loneSurrogate } }
        assert.strictEqual(yield* refusedField(checkNewAuthRequest(input)), `registration.${field}`)
      }
      for (const field of ["display_name", "email"] as const) {
        assert.strictEqual(yield* refusedField(checkNewUser({ name: "alice", [field]: loneSurrogate })), field)
      }
      for (const field of ["src", "dst", "local_user"] as const) {
        assert.strictEqual(yield* refusedField(checkListFilter({ [field]: loneSurrogate })), field)
      }
      // The low half alone, and at the end, just as well.
      assert.strictEqual(
        yield* refusedField(
          checkNewAuthRequest({ kind: "ssh_check", ssh_check: { ...sshCheck, local_user: "root\udc00" } })
        ),
        "ssh_check.local_user"
      )
    })
  )

  it.effect("a character outside the BMP (a surrogate pair) is text like any other", () =>
    Effect.gen(function* () {
      const input = { kind: "ssh_check" as const, ssh_check: { ...sshCheck, dst: "host-\u{1F600}" } }
      assert.isUndefined(yield* refusedField(checkNewAuthRequest(input)))
      assert.isUndefined(yield* refusedField(checkNewUser({ name: "alice", display_name: "Alice \u{1F600}" })))
      assert.isUndefined(yield* refusedField(checkListFilter({ dst: "host-\u{1F600}" })))
    })
  )
})
