import type {
  CertInfo,
  CertRenewFrame,
  CertRenewProgress,
  UnavailableCertificate
} from "@gatehouse-edge/contract/domain"
import { AcmeNotConfigured, CertificateNotFound, errorCodeOf, RenewalInProgress } from "@gatehouse-edge/contract/domain"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type { AcmeConfig, CertificateConfig } from "../config/ConfigSections.js"
import { ConfigDefaults } from "../config/GatehouseConfig.js"
import { readSecret } from "../config/ReadSecret.js"
import { Events } from "../events/Events.js"
import { type AcmeCertificate, type Issuer, makeAcmeCertificates } from "./AcmeCertificates.js"
import { certInfoOf } from "./CertInfoOf.js"
import { Certificates, type RenewFailed } from "./Certificates.js"
import { DnsProvider } from "./dns/DnsProvider.js"
import * as Rfc2136Provider from "./dns/Rfc2136Provider.js"
import { makeFileCertificates } from "./FileCertificates.js"
import { runRenewalScheduler } from "./RenewalScheduler.js"

/** What the certificates need: both providers' config sections and the data dir (ACME state lives there). */
export interface CertificatesOptions {
  readonly certificates: ReadonlyArray<CertificateConfig>
  readonly acme: AcmeConfig | undefined
  readonly dataDir: string
  /** How long file changes settle before a reload (300 ms). */
  readonly fileSettleMs?: number
  /** Replaces the ACME client (tests of the scheduling around it). */
  readonly issue?: Issuer
}

const noProgress = () => Effect.void

/**
 * Builds the service: loads the file certificates and starts watching them, loads the ACME certificates and their
 * renewal records from the data dir and starts the renewal scheduler (which obtains missing certificates at once).
 * A `DnsProvider` in context replaces the RFC 2136 provider of `acme.dns01`.
 */
export const make = Effect.fn("CertificatesLive.make")(function* (options: CertificatesOptions) {
  const events = yield* Events
  const scope = yield* Effect.scope
  const renewBeforeMs = options.acme?.renewBeforeMs ?? ConfigDefaults.acmeRenewBeforeMs
  const files = yield* makeFileCertificates(options.certificates, events, { settleMs: options.fileSettleMs })

  const provided = yield* Effect.serviceOption(DnsProvider)
  const dns01 = options.acme?.dns01
  const dns = Option.isSome(provided)
    ? provided.value
    : dns01 === undefined
      ? undefined
      : Rfc2136Provider.make({ ...dns01, keySecret: yield* readSecret(dns01.keySecret) })
  const acme =
    options.acme === undefined
      ? undefined
      : yield* makeAcmeCertificates(options.acme, options.dataDir, events, { dns, issue: options.issue })

  // One renewal at a time: a manual one refuses (409) while another runs, the scheduler waits for its turn.
  const lock = yield* Semaphore.make(1)
  const wake = yield* Queue.sliding<void>(1)

  const infoNow = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const fromFiles = files.flatMap(
      (entry): Array<CertInfo> =>
        entry.pair === undefined
          ? []
          : [
              certInfoOf({
                name: entry.config.name,
                provider: "file",
                leaf: entry.pair.leaf,
                now,
                renewBeforeMs,
                renewal: null
              })
            ]
    )
    const fromAcme = (acme?.entries ?? []).flatMap(
      (entry): Array<CertInfo> =>
        entry.pair === undefined
          ? []
          : [
              certInfoOf({
                name: entry.config.name,
                provider: "acme",
                leaf: entry.pair.leaf,
                now,
                renewBeforeMs,
                renewal: acme!.renewal(entry)
              })
            ]
    )
    return [...fromFiles, ...fromAcme]
  })

  // The configured certificates without a pair, each with why: what "no certificate available" has to explain.
  const unavailableNow = (): ReadonlyArray<UnavailableCertificate> => [
    ...files.flatMap(
      (entry): Array<UnavailableCertificate> =>
        entry.pair === undefined
          ? [{ name: entry.config.name, provider: "file", problem: entry.problem ?? "its files were not read yet" }]
          : []
    ),
    ...(acme?.entries ?? []).flatMap((entry): Array<UnavailableCertificate> => {
      if (entry.pair !== undefined) return []
      const { next_at, last_error } = acme!.renewal(entry)
      const problem =
        last_error === null
          ? `not obtained yet (next attempt at ${next_at})`
          : `not obtained: ${last_error} (next attempt at ${next_at})`
      return [{ name: entry.config.name, provider: "acme", problem }]
    })
  ]
  const noneAvailable = () => {
    const unavailable = unavailableNow()
    return new CertificateNotFound(unavailable.length === 0 ? {} : { unavailable })
  }

  const info = Effect.flatMap(infoNow, (list) =>
    list.length === 0 ? Effect.fail(noneAvailable()) : Effect.succeed(list)
  ).pipe(Effect.withSpan("Certificates.info"))

  const targetsOf = Effect.fnUntraced(function* (name: string | undefined) {
    const entries = acme?.entries ?? []
    if (name !== undefined) {
      const entry = entries.find((e) => e.config.name === name)
      if (entry !== undefined) return [entry]
      if (files.some((f) => f.config.name === name)) return yield* new AcmeNotConfigured({ certificate: name })
      return yield* new CertificateNotFound({ certificate: name })
    }
    if (entries.length > 0) return entries
    // Nothing for ACME to renew is a 503 whether or not file certificates exist (SPEC §7 keeps the 404 "no
    // certificate available" for `/cert/info`; the README: "renewing with no ACME certificate configured ... a 503").
    return yield* new AcmeNotConfigured({})
  })

  // Every target is tried (one failing, even one that crashed, must not keep the others old); the first failure is
  // the answer.
  const renewAll = (
    targets: ReadonlyArray<AcmeCertificate>,
    progress: (line: CertRenewProgress) => Effect.Effect<void>
  ) =>
    Effect.gen(function* () {
      let failure: Cause.Cause<RenewFailed> | undefined
      for (const entry of targets) {
        const exit = yield* Effect.exit(acme!.renew(entry, "manual", progress))
        if (Exit.isFailure(exit) && failure === undefined) failure = exit.cause
      }
      if (failure !== undefined) return yield* Effect.failCause(failure)
      return yield* infoNow
    })

  // Runs in the service's scope: a client that goes away does not cut an order in half.
  const start = Effect.fnUntraced(function* (
    name: string | undefined,
    progress: (line: CertRenewProgress) => Effect.Effect<void>
  ) {
    const targets = yield* targetsOf(name)
    // Taking the lock and handing it to the renewal's fiber (which releases it) are one step: a caller interrupted
    // in between (a client gone) would keep it taken, and every later renewal would be refused until a restart.
    // The renewal's fiber itself starts interruptible (a fork does not inherit this), so it still ends with the scope.
    return yield* Effect.uninterruptible(
      Effect.gen(function* () {
        if (!(yield* lock.takeIfAvailable(1))) return yield* new RenewalInProgress()
        return yield* renewAll(targets, progress).pipe(
          Effect.ensuring(Effect.andThen(lock.release(1), Queue.offer(wake, undefined))),
          Effect.forkIn(scope)
        )
      })
    )
  })

  const finalFrame = (exit: Exit.Exit<ReadonlyArray<CertInfo>, RenewFailed>): CertRenewFrame => {
    if (Exit.isSuccess(exit)) return { ok: true, certs: exit.value }
    const reason = exit.cause.reasons.find(Cause.isFailReason)
    return reason === undefined
      ? { ok: false, error: { code: "internal", message: "internal error" } }
      : { ok: false, error: { code: errorCodeOf(reason.error), message: reason.error.message } }
  }

  if (acme !== undefined) yield* Effect.forkIn(runRenewalScheduler(acme, lock, wake), scope)

  return Certificates.of({
    info,
    renew: Effect.fn("Certificates.renew")(function* (name?: string) {
      return yield* Fiber.join(yield* start(name, noProgress))
    }),
    renewWithProgress: Effect.fn("Certificates.renewWithProgress")(function* (name?: string) {
      const frames = yield* Queue.unbounded<CertRenewFrame, Cause.Done>()
      const fiber = yield* start(name, (line) => Effect.asVoid(Queue.offer(frames, line)))
      yield* Fiber.await(fiber).pipe(
        Effect.flatMap((exit) => Queue.offer(frames, finalFrame(exit))),
        Effect.andThen(Queue.end(frames)),
        Effect.forkIn(scope)
      )
      return Stream.fromQueue(frames)
    }),
    pem: Effect.fn("Certificates.pem")(function* (name?: string) {
      const available = [
        ...files.map((f) => ({ name: f.config.name, pair: f.pair })),
        ...(acme?.entries ?? []).map((a) => ({ name: a.config.name, pair: a.pair }))
      ].filter((c) => name === undefined || c.name === name)
      const found = available.find((c) => c.pair !== undefined)
      if (found?.pair === undefined)
        return yield* name === undefined ? noneAvailable() : new CertificateNotFound({ certificate: name })
      return { name: found.name, cert: found.pair.certPem, key: found.pair.keyPem }
    })
  })
})

/** The real certificates service (needs `Events`; a `DnsProvider` in context replaces the configured one). */
export const layer = (options: CertificatesOptions) => Layer.effect(Certificates)(make(options))
