import { assert, describe, it } from "@effect/vitest"
import { backoffMs, nextAttemptAt, renewAt } from "../../src/certs/RenewalPolicy.js"

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

describe("renewal policy", () => {
  it("renews 30 days before expiry, or in the last third of a shorter lifetime", () => {
    assert.strictEqual(renewAt(0, 90 * day, 30 * day), 60 * day)
    assert.strictEqual(renewAt(0, 365 * day, 30 * day), 335 * day)
    assert.strictEqual(renewAt(0, 6 * day, 30 * day), 4 * day)
    assert.strictEqual(renewAt(0, 6 * hour, 30 * day), 4 * hour)
  })

  it("backs off from 5 minutes, doubling, to at most 6 hours", () => {
    assert.deepStrictEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 40].map((n) => backoffMs(n) / minute),
      [5, 10, 20, 40, 80, 160, 320, 360, 360]
    )
  })

  it("the next attempt: at once without a certificate, at the window, after a back-off, never twice in 5 minutes", () => {
    const validity = { notBefore: 0, notAfter: 90 * day }
    assert.strictEqual(nextAttemptAt({ validity: undefined, failures: 0, lastAttemptAt: undefined }, 30 * day), 0)
    assert.strictEqual(nextAttemptAt({ validity, failures: 0, lastAttemptAt: 0 }, 30 * day), 60 * day)
    // Failing inside the window: the back-off decides; failing before the window (a manual try): the window does.
    assert.strictEqual(
      nextAttemptAt({ validity, failures: 3, lastAttemptAt: 61 * day }, 30 * day),
      61 * day + 20 * minute
    )
    assert.strictEqual(nextAttemptAt({ validity, failures: 1, lastAttemptAt: day }, 30 * day), 60 * day)
    // A certificate that is due the moment it was issued is not asked for again at once.
    const due = { notBefore: 0, notAfter: hour }
    assert.strictEqual(nextAttemptAt({ validity: due, failures: 0, lastAttemptAt: hour }, 30 * day), hour + 5 * minute)
  })

  it("a last attempt that is not a time counts as none: due at the window, never NaN", () => {
    const validity = { notBefore: 0, notAfter: 90 * day }
    assert.strictEqual(nextAttemptAt({ validity, failures: 3, lastAttemptAt: Number.NaN }, 30 * day), 60 * day)
    assert.strictEqual(nextAttemptAt({ validity: undefined, failures: 1, lastAttemptAt: Number.NaN }, 30 * day), 0)
  })
})
