import type {
  AcmeChallengeFailed,
  AcmeFailed,
  AcmeNotConfigured,
  AcmeUnreachable,
  CertInfo,
  CertificateNotFound,
  CertRenewFrame,
  RenewalInProgress
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Stream from "effect/Stream"

/** Why a renewal could not start: nothing to renew, or one is already running. */
export type RenewRefused = CertificateNotFound | AcmeNotConfigured | RenewalInProgress

/** Why a renewal failed: the ACME server down or refusing, or a challenge that did not validate. */
export type RenewFailed = AcmeUnreachable | AcmeFailed | AcmeChallengeFailed

/** The PEM files a TLS listener needs: the chain (leaf first) and its private key. */
export interface CertificatePem {
  readonly name: string
  readonly cert: string
  readonly key: Redacted.Redacted<string>
}

/**
 * Certificates (SPEC §7) from their providers: files on disk (watched; a bad pair is reported and the previous one
 * kept) and ACME (obtained, persisted in the data dir, renewed before expiry with back-off on failure). One renewal
 * runs at a time. The real layer is `CertificatesLive.layer`.
 */
export class Certificates extends Context.Service<
  Certificates,
  {
    /**
     * Every available certificate (files first, then ACME, in config order); none → `CertificateNotFound`, naming each
     * configured certificate with why it is not available (its files' problem, its last renewal error).
     */
    readonly info: Effect.Effect<ReadonlyArray<CertInfo>, CertificateNotFound>
    /**
     * Renews every ACME certificate (or the one named) now and answers every certificate after it. Fails at once
     * with `RenewalInProgress` while another renewal runs; on failure the previous certificate stays in use.
     */
    readonly renew: (name?: string) => Effect.Effect<ReadonlyArray<CertInfo>, RenewRefused | RenewFailed>
    /**
     * Starts the same renewal and gives its progress lines, then one result frame. Every refusal happens before the
     * stream is given. Closing the stream early does not stop the renewal: a half-done ACME order is worse than one
     * that finishes unobserved.
     */
    readonly renewWithProgress: (name?: string) => Effect.Effect<Stream.Stream<CertRenewFrame>, RenewRefused>
    /** The PEM of a certificate (the first available one without a name), for a TLS listener. */
    readonly pem: (name?: string) => Effect.Effect<CertificatePem, CertificateNotFound>
  }
>()("@gatehouse-edge/core/Certificates") {}
