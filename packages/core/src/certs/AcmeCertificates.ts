import type { CertRenewal, CertRenewProgress } from "@gatehouse-edge/contract/domain"
import { AcmeFailed, CertEvents, errorCodeOf } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { AcmeCertificateConfig, AcmeConfig } from "../config/ConfigSections.js"
import type { Events } from "../events/Events.js"
import { publishOrLog } from "../events/PublishOrLog.js"
import { type IssueOptions, issueCertificate } from "./AcmeIssuer.js"
import { makeAcmeStore, type RenewalRecord } from "./AcmeStore.js"
import { useDirectory } from "./AcmeTransport.js"
import { subjectAltNames, validityOf } from "./CertInfoOf.js"
import { readCertificateFile } from "./CertificateFileRead.js"
import type { CertificatePair } from "./CertificatePair.js"
import type { RenewFailed } from "./Certificates.js"
import type { DnsProvider } from "./dns/DnsProvider.js"
import { http01Responder } from "./Http01Responder.js"
import { nextAttemptAt } from "./RenewalPolicy.js"
import { unrecordedIssuer } from "./UnrecordedIssuer.js"

/** `acme.ca_file` could not be read when the server started. */
export class AcmeCaUnreadable extends Data.TaggedError("AcmeCaUnreadable")<{
  readonly path: string
  readonly reason: string
}> {
  override get message() {
    return `cannot read acme.ca_file ${this.path}: ${this.reason}`
  }
}

/** How a certificate is obtained: the real ACME client, or a stand-in in tests of the scheduling around it. */
export type Issuer = (options: IssueOptions) => Effect.Effect<CertificatePair, RenewFailed>

/** An ACME certificate: its config, the pair in use (if any was obtained) and its renewal record. */
export interface AcmeCertificate {
  readonly config: AcmeCertificateConfig
  pair: CertificatePair | undefined
  record: RenewalRecord
}

/** What started a renewal (in its events). */
export type RenewTrigger = "manual" | "scheduled"

const iso = (ms: number) => new Date(ms).toISOString()

const fitsConfig = (pair: CertificatePair, config: AcmeCertificateConfig) => {
  const names = new Set(
    subjectAltNames(pair.leaf.subjectAltName).flatMap((n) => (n.kind === "DNS" ? [n.value.toLowerCase()] : []))
  )
  return names.size === new Set(config.domains).size && config.domains.every((domain) => names.has(domain))
}

/**
 * The ACME provider: its certificates and their renewal records loaded from the data dir, the account key (made on
 * first start), and `renew`, which obtains one certificate, installs it (disk, then memory) and records the outcome
 * (`cert/renewed` or `cert/renew_failed`, the failure counted for back-off and kept with its message).
 */
export const makeAcmeCertificates = (
  config: AcmeConfig,
  dataDir: string,
  events: Events["Service"],
  options: { readonly dns: DnsProvider["Service"] | undefined; readonly issue?: Issuer | undefined }
): Effect.Effect<
  {
    readonly entries: ReadonlyArray<AcmeCertificate>
    readonly nextAttempt: (entry: AcmeCertificate) => number
    readonly renewal: (entry: AcmeCertificate) => CertRenewal
    readonly renew: (
      entry: AcmeCertificate,
      trigger: RenewTrigger,
      progress: (line: CertRenewProgress) => Effect.Effect<void>
    ) => Effect.Effect<CertificatePair, RenewFailed>
  },
  AcmeCaUnreadable,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const store = makeAcmeStore(dataDir, config.directory)
    const caPem =
      config.caFile === undefined
        ? undefined
        : yield* readCertificateFile(config.caFile).pipe(
            Effect.mapError((error) => new AcmeCaUnreadable({ path: error.path, reason: error.reason }))
          )
    yield* useDirectory(config.directory, caPem)
    // Before `accountKey` makes the configured directory's account: the accounts of earlier starts are the only
    // evidence of who issued a certificate stored before the directory was recorded.
    const earlierAccounts = yield* store.accountDirectories
    const accountKey = yield* store.accountKey
    const issue = options.issue ?? issueCertificate
    // The event reports an order already decided: a certificate issued and installed is not a failed renewal because
    // the event store could not be written (an answer of "failed" would have the operator order it again, against
    // the CA's rate limits), nor does a store failure replace the CA's reason for a failed one.
    const publish = publishOrLog(events, "certificate")

    const entries: ReadonlyArray<AcmeCertificate> = yield* Effect.forEach(config.certificates, (certificate) =>
      Effect.gen(function* () {
        const { name } = certificate
        const pair = yield* store.loadCertificate(name)
        let record = yield* store.loadRecord(name)
        if (pair !== undefined && record.directory === undefined) {
          // Written down, so the next start (after this one has made the configured directory's account) agrees.
          const issuer = unrecordedIssuer(name, config.directory, earlierAccounts)
          if (issuer.note !== undefined) yield* (issuer.guessed ? Effect.logWarning : Effect.logInfo)(issuer.note)
          record = { ...record, directory: issuer.directory }
          yield* store.saveRecord(name, record)
        }
        if (pair !== undefined && record.directory !== config.directory) {
          yield* Effect.logInfo(
            `certificate ${name} was issued by ${record.directory}, not by acme.directory ${config.directory}: ` +
              "it is served until one from the configured directory replaces it, obtained at once"
          )
        }
        return { config: certificate, pair, record }
      })
    )

    // A stored certificate for other names, or from another CA (staging before production), than configured now is
    // still served, but renewed at once.
    const fitsNow = (entry: AcmeCertificate): entry is AcmeCertificate & { readonly pair: CertificatePair } =>
      entry.pair !== undefined && fitsConfig(entry.pair, entry.config) && entry.record.directory === config.directory

    const nextAttempt = (entry: AcmeCertificate) =>
      nextAttemptAt(
        {
          validity: fitsNow(entry) ? validityOf(entry.pair.leaf) : undefined,
          failures: entry.record.failures,
          lastAttemptAt: entry.record.last_attempt_at === null ? undefined : Date.parse(entry.record.last_attempt_at)
        },
        config.renewBeforeMs
      )

    const renewal = (entry: AcmeCertificate): CertRenewal => ({
      next_at: iso(nextAttempt(entry)),
      last_attempt_at: entry.record.last_attempt_at,
      last_error: entry.record.last_error
    })

    const obtain = (entry: AcmeCertificate, progress: (line: CertRenewProgress) => Effect.Effect<void>) =>
      Effect.scoped(
        Effect.gen(function* () {
          const http01 =
            entry.config.challenge === "http-01" && config.http01 !== undefined
              ? yield* http01Responder(config.http01).pipe(
                  Effect.mapError((error) => new AcmeFailed({ certificate: entry.config.name, detail: error.message }))
                )
              : undefined
          return yield* issue({
            directory: config.directory,
            email: config.email,
            accountKey,
            certificate: entry.config,
            http01,
            dns: entry.config.challenge === "dns-01" ? options.dns : undefined,
            progress
          })
        })
      )

    const renew = Effect.fn("Certificates.renewOne")(function* (
      entry: AcmeCertificate,
      trigger: RenewTrigger,
      progress: (line: CertRenewProgress) => Effect.Effect<void>
    ) {
      const { name, domains } = entry.config
      const startedAt = yield* Clock.currentTimeMillis
      return yield* obtain(entry, progress).pipe(
        Effect.tap((pair) =>
          Effect.gen(function* () {
            // Disk first: a crash after this starts with the new certificate; memory only then serves it.
            yield* store.saveCertificate(name, pair)
            entry.pair = pair
            entry.record = {
              failures: 0,
              last_attempt_at: iso(startedAt),
              last_error: null,
              directory: config.directory
            }
            yield* store.saveRecord(name, entry.record)
            const notAfter = iso(validityOf(pair.leaf).notAfter)
            yield* progress({ progress: `certificate ${name} installed`, step: "installed", certificate: name })
            yield* publish(
              CertEvents.renewed({
                name,
                domains,
                serial: pair.leaf.serialNumber.toUpperCase(),
                not_after: notAfter,
                trigger
              })
            )
            yield* Effect.logInfo(`certificate ${name} renewed (${domains.join(", ")}), valid until ${notAfter}`)
          })
        ),
        Effect.tapError((error) =>
          Effect.gen(function* () {
            // The stored certificate did not change: nor did the directory that issued it.
            entry.record = {
              ...entry.record,
              failures: entry.record.failures + 1,
              last_attempt_at: iso(startedAt),
              last_error: error.message
            }
            yield* store.saveRecord(name, entry.record)
            const next = iso(nextAttempt(entry))
            yield* publish(
              CertEvents.renewFailed({
                name,
                domains,
                code: errorCodeOf(error),
                error: error.message,
                next_attempt_at: next,
                trigger
              })
            )
            yield* Effect.logWarning(`certificate ${name}: renewal failed, next attempt at ${next}: ${error.message}`)
          })
        )
      )
    })

    return { entries, nextAttempt, renewal, renew }
  })
