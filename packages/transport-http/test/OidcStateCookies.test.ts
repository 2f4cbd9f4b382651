import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import {
  completedStateCookie,
  heldState,
  MaxPendingOidcStates,
  startedStateCookies
} from "../src/handlers/OidcStateCookies.js"

// The browser's jar as a `Cookie` header carries it: name → value, in the order the cookies were set.
const jarAfter = (starts: ReadonlyArray<readonly [state: string, at: number]>) => {
  let jar: Record<string, string> = {}
  for (const [state, at] of starts) {
    const set = startedStateCookies(jar, state, at, true)
    const next = { ...jar }
    for (const [name, value, options] of set) {
      delete next[name]
      if (Duration.toMillis(options!.maxAge!) > 0) next[name] = value
    }
    jar = next
  }
  return jar
}

describe("OIDC state cookies", () => {
  it("one per sign-in: each start's state is held under its own name, scoped to the auth endpoints", () => {
    const [own] = startedStateCookies({}, "state-a", 1000, true)
    assert.match(own![0], /^gatehouse_oidc_state_[0-9a-f]{8}$/)
    assert.strictEqual(own![1], "1000.state-a")
    assert.deepInclude(own![2], { path: "/api/v1/auth", httpOnly: true, sameSite: "lax", secure: true })
    const jar = jarAfter([
      ["state-a", 1000],
      ["state-b", 1001]
    ])
    assert.strictEqual(heldState(jar, "state-a"), "state-a")
    assert.strictEqual(heldState(jar, "state-b"), "state-b")
    assert.isUndefined(heldState(jar, "state-c"), "no sign-in of that state started here")
    assert.isUndefined(heldState(jar, null))
    assert.isUndefined(heldState(jar, ""))
    const [name, value, options] = completedStateCookie("state-a", false)
    assert.strictEqual(name, own![0])
    assert.strictEqual(value, "")
    assert.strictEqual(Duration.toMillis(options!.maxAge!), 0)
  })

  it(`keeps at most ${MaxPendingOidcStates} pending, dropping the oldest, also among starts of one millisecond`, () => {
    const states = ["s1", "s2", "s3", "s4", "s5", "s6"]
    for (const at of [(i: number) => 1000 + i, () => 1000]) {
      const jar = jarAfter(states.map((state, i) => [state, at(i)] as const))
      assert.strictEqual(Object.keys(jar).length, MaxPendingOidcStates)
      assert.deepStrictEqual(
        states.filter((state) => heldState(jar, state) !== undefined),
        ["s3", "s4", "s5", "s6"]
      )
    }
  })

  it("drops a pending cookie it cannot read before any it can", () => {
    const readable = jarAfter([
      ["s1", 1000],
      ["s2", 1001],
      ["s3", 1002]
    ])
    assert.lengthOf(startedStateCookies(readable, "s4", 1003, true), 1, "under the limit, nothing is dropped")
    const jar = { gatehouse_oidc_state_00000000: "garbage", ...readable }
    const dropped = startedStateCookies(jar, "s4", 1003, true).filter(([, value]) => value === "")
    assert.deepStrictEqual(
      dropped.map(([name]) => name),
      ["gatehouse_oidc_state_00000000"]
    )
  })
})
