import { CertEvents } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { CertificateConfig } from "../config/ConfigSections.js"
import type { Events } from "../events/Events.js"
import { publishOrLog } from "../events/PublishOrLog.js"
import { type CertificateFileUnreadable, readCertificateFile } from "./CertificateFileRead.js"
import { type CertificatePair, CertificateProblem, parseCertificatePair } from "./CertificatePair.js"
import { validityProblemAt } from "./ValidityProblem.js"

/** A configured certificate from files: the pair in use (`undefined` until its files once formed one), and why not. */
export interface FileCertificate {
  readonly config: CertificateConfig
  pair: CertificatePair | undefined
  /** Why the last load of its files did not put a valid pair in use; `undefined` after one that did. */
  problem: string | undefined
}

/** Reads and checks a certificate's two files; an unreadable file or a mismatch is a problem naming the file. */
export const readCertificateFiles = (config: CertificateConfig) =>
  Effect.gen(function* () {
    const unreadable = (error: CertificateFileUnreadable) => new CertificateProblem({ reason: error.message })
    const cert = yield* readCertificateFile(config.cert).pipe(Effect.mapError(unreadable))
    const key = yield* readCertificateFile(config.key).pipe(Effect.mapError(unreadable))
    return yield* parseCertificatePair(cert, key)
  })

/**
 * How a file certificate is loaded: its files read and checked, then the pair put in use and announced
 * (`cert/reloaded`, unless `announce` is false, at start), or refused and reported (`cert/load_failed`).
 *
 * A pair outside its validity window (expired, or not valid yet) never replaces a pair in use that is valid: it is
 * reported, and one not valid yet is read again at its start through `recheckAt` (its files may never change
 * again). With nothing valid in use it is served anyway, and reported the same way: a client then learns that the
 * certificate expired, where no certificate at all fails its handshake with no reason, and the operator sees it
 * in `/cert/info` (negative `days_left`).
 */
export const makeFileCertificateLoad = (
  events: Events["Service"],
  recheckAt: (entry: FileCertificate, at: number) => Effect.Effect<void>
) => {
  // An event reports a load already done: a failing event store must not end the watch, or no later change of the
  // files would be loaded.
  const publish = publishOrLog(events, "certificate")

  // `outcome` (what is in use now) goes to the log only: the event's description says it for the usual case.
  const report = Effect.fnUntraced(function* (entry: FileCertificate, error: string, outcome?: string) {
    const { name, cert, key } = entry.config
    entry.problem = error
    yield* Effect.logWarning(`certificate ${name}: ${error}${outcome === undefined ? "" : `; ${outcome}`}`)
    yield* publish(CertEvents.loadFailed({ name, cert, key, error }))
  })

  return Effect.fnUntraced(function* (entry: FileCertificate, announce: boolean) {
    const result = yield* Effect.result(readCertificateFiles(entry.config))
    if (Result.isFailure(result)) {
      const outcome = entry.pair === undefined ? "not available" : "the previous pair stays in use"
      return yield* report(entry, result.failure.reason, outcome)
    }
    const pair = result.success
    const now = yield* Clock.currentTimeMillis
    const invalid = validityProblemAt(pair.leaf, now)
    const current = entry.pair
    if (invalid !== undefined && current !== undefined && validityProblemAt(current.leaf, now) === undefined) {
      if (invalid.kind === "not_yet_valid") yield* recheckAt(entry, invalid.validFrom)
      return yield* report(entry, invalid.reason, "the previous pair stays in use")
    }
    const same = current !== undefined && current.certPem === pair.certPem
    entry.pair = pair
    if (invalid !== undefined) {
      return yield* report(entry, `${invalid.reason}; it is served anyway: there is no valid pair to serve instead`)
    }
    entry.problem = undefined
    if (announce && !same) {
      yield* publish(
        CertEvents.reloaded({
          name: entry.config.name,
          serial: pair.leaf.serialNumber.toUpperCase(),
          not_after: new Date(Date.parse(pair.leaf.validTo)).toISOString()
        })
      )
    }
  })
}
