import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

/** A TXT record a DNS-01 challenge needs: `_acme-challenge.<name>` and the key authorization's digest. */
export interface ChallengeRecord {
  readonly fqdn: string
  readonly value: string
}

/** A DNS provider could not change or see a record; `detail` says why in words. */
export class DnsProviderFailed extends Data.TaggedError("DnsProviderFailed")<{ readonly detail: string }> {
  override get message() {
    return this.detail
  }
}

/**
 * Where DNS-01 challenges are published: present a TXT record, wait until the world can see it, remove it again.
 * Gatehouse ships an RFC 2136 provider (`Rfc2136Provider.layer`, dynamic updates signed with TSIG, which BIND, Knot,
 * PowerDNS and most self-hosted servers accept); an embedder provides this service to plug in any other DNS API.
 */
export class DnsProvider extends Context.Service<
  DnsProvider,
  {
    /** Adds the record (other TXT records of the name stay: several challenges may share one). */
    readonly present: (record: ChallengeRecord) => Effect.Effect<void, DnsProviderFailed>
    /** Waits until the record is visible where the CA will look, failing after the provider's timeout. */
    readonly waitForPropagation: (record: ChallengeRecord) => Effect.Effect<void, DnsProviderFailed>
    /** Removes exactly this record. */
    readonly cleanup: (record: ChallengeRecord) => Effect.Effect<void, DnsProviderFailed>
  }
>()("@gatehouse-edge/core/DnsProvider") {}
