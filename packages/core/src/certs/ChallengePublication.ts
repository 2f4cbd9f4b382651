import type { AcmeChallengeFailed } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import type { AcmeCertificateConfig } from "../config/ConfigSections.js"
import type { DnsProvider } from "./dns/DnsProvider.js"
import type { Http01Responder } from "./Http01Responder.js"

/** How one challenge is published, seen where the CA looks, and withdrawn; failures are the challenge's. */
export interface ChallengePublication {
  /** Adds the answer (the HTTP-01 token, the DNS-01 TXT record). */
  readonly present: Effect.Effect<void, AcmeChallengeFailed>
  /** Waits until the CA can see it (DNS propagation; at once for HTTP-01). */
  readonly visible: Effect.Effect<void, AcmeChallengeFailed>
  /** Removes what `present` added; never fails (a leftover answer is harmless, and logged). */
  readonly cleanup: Effect.Effect<void>
}

/** Where a challenge is published: the certificate's challenge type and the publishers configured for it. */
export interface ChallengeTargets {
  readonly challenge: AcmeCertificateConfig["challenge"]
  readonly http01: Http01Responder | undefined
  readonly dns: DnsProvider["Service"] | undefined
}

/** The publication of one challenge for the name `base`; failures name the domain through `failChallenge`. */
export const challengePublication = (
  targets: ChallengeTargets,
  base: string,
  token: string,
  keyAuthorization: string,
  failChallenge: (detail: string) => AcmeChallengeFailed
): ChallengePublication => {
  if (targets.challenge === "http-01") {
    const responder = targets.http01
    return {
      present:
        responder === undefined
          ? Effect.fail(failChallenge("no HTTP-01 listener is configured (acme.http01.addr)"))
          : responder.set(token, keyAuthorization),
      visible: Effect.void,
      cleanup: responder === undefined ? Effect.void : responder.remove(token)
    }
  }
  const dns = targets.dns
  const record = { fqdn: `_acme-challenge.${base}`, value: keyAuthorization }
  if (dns === undefined) {
    return {
      present: Effect.fail(failChallenge("no DNS provider is configured (acme.dns01)")),
      visible: Effect.void,
      cleanup: Effect.void
    }
  }
  return {
    present: dns.present(record).pipe(Effect.mapError((error) => failChallenge(error.detail))),
    visible: dns.waitForPropagation(record).pipe(Effect.mapError((error) => failChallenge(error.detail))),
    // A record left behind is harmless (it is only read during validation): log it, never fail a good order on it.
    cleanup: dns
      .cleanup(record)
      .pipe(
        Effect.catch((error) => Effect.logWarning(`could not remove the TXT record ${record.fqdn}: ${error.detail}`))
      )
  }
}

/**
 * Runs `use` while the challenge is published. Only the adding is the acquisition: a record that is added but never
 * seen (propagation timed out) is withdrawn like any other, or each failed attempt of the renewal back-off would
 * leave one more `_acme-challenge` value behind.
 */
export const whilePublished = <A, E, R>(publication: ChallengePublication, use: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    publication.present,
    () => Effect.andThen(publication.visible, use),
    () => publication.cleanup
  )
