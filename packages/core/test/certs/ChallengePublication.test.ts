import { assert, describe, it } from "@effect/vitest"
import { AcmeChallengeFailed } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { challengePublication, whilePublished } from "../../src/certs/ChallengePublication.js"
import { type ChallengeRecord, type DnsProvider, DnsProviderFailed } from "../../src/certs/dns/DnsProvider.js"

// The DNS-01 challenge's TXT record around a validation. `DnsProvider` is our own port (an embedder plugs any DNS
// API in through it), so a zone held in memory is a provider like any other; RFC 2136 against BIND is tested in
// test/certs. What matters here is which record is left in the zone when each step fails.

/** A provider over a zone in memory; `propagation` decides whether a present record is ever seen. */
const memoryZone = (propagation: "seen" | "never") => {
  const zone: Array<ChallengeRecord> = []
  const provider: DnsProvider["Service"] = {
    present: (record) => Effect.sync(() => void zone.push(record)),
    waitForPropagation: (record) =>
      propagation === "seen"
        ? Effect.void
        : Effect.fail(new DnsProviderFailed({ detail: `${record.fqdn} not visible after 120 s` })),
    cleanup: (record) =>
      Effect.sync(() => {
        const at = zone.findIndex((r) => r.fqdn === record.fqdn && r.value === record.value)
        if (at !== -1) zone.splice(at, 1)
      })
  }
  return { zone, provider }
}

const failChallenge = (detail: string) =>
  new AcmeChallengeFailed({ certificate: "web", domain: "a.test", challenge: "dns-01", detail })

const publicationIn = (provider: DnsProvider["Service"], keyAuthorization: string) =>
  challengePublication(
    { challenge: "dns-01", http01: undefined, dns: provider },
    "a.test",
    "token",
    keyAuthorization,
    failChallenge
  )

describe("a DNS-01 challenge's TXT record", () => {
  it.effect("is there during the validation and removed after it", () =>
    Effect.gen(function* () {
      const { zone, provider } = memoryZone("seen")
      const during = yield* whilePublished(
        publicationIn(provider, "digest-1"),
        Effect.sync(() => [...zone])
      )
      assert.deepStrictEqual(during, [{ fqdn: "_acme-challenge.a.test", value: "digest-1" }])
      assert.deepStrictEqual(zone, [])
    })
  )

  it.effect("is removed when it never propagates: failed attempts leave no record behind", () =>
    Effect.gen(function* () {
      const { zone, provider } = memoryZone("never")
      let validated = false
      // Three attempts, as the renewal back-off would make them.
      for (const attempt of [1, 2, 3]) {
        const error = yield* Effect.flip(
          whilePublished(
            publicationIn(provider, `digest-${attempt}`),
            Effect.sync(() => {
              validated = true
            })
          )
        )
        assert.instanceOf(error, AcmeChallengeFailed)
        assert.strictEqual(error.detail, "_acme-challenge.a.test not visible after 120 s")
        assert.deepStrictEqual(zone, [], `attempt ${attempt} left its record in the zone`)
      }
      assert.isFalse(validated, "the CA is not asked to validate a record it cannot see")
    })
  )
})
