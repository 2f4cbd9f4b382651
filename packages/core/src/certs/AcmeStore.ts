import { createHash, generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { AcmeFailed } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { writeFileAtomic } from "../files/AtomicWrite.js"
import { FileSystemFailure } from "../files/FileSystemFailure.js"
import { type CertificatePair, certificateBlocks, parseCertificatePair, privateKeyBlock } from "./CertificatePair.js"

// As written (`toISOString`) or by hand with an offset. Anything else (an empty string, a typo) would make the next
// attempt's time NaN: the scheduler would spin and `/cert/info` fail, so the record is refused (and logged) instead.
const IsoTime = Schema.String.check(
  Schema.makeFilter((text) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) &&
    Number.isFinite(Date.parse(text))
      ? undefined
      : "expected an ISO 8601 time"
  )
)

/**
 * The renewal state of one ACME certificate as kept on disk, so back-off and errors survive a restart; `directory`
 * is the ACME directory that issued the stored certificate (absent in data dirs from before it was recorded).
 */
export const RenewalRecord = Schema.Struct({
  failures: Schema.Int,
  last_attempt_at: Schema.NullOr(IsoTime),
  last_error: Schema.NullOr(Schema.String),
  directory: Schema.optionalKey(Schema.String)
})
export type RenewalRecord = typeof RenewalRecord.Type

/** The state of a certificate never tried. */
export const freshRecord: RenewalRecord = { failures: 0, last_attempt_at: null, last_error: null }

const decodeRecord = Schema.decodeUnknownEffect(Schema.fromJsonString(RenewalRecord))

/**
 * Where ACME keeps its files in the data dir:
 * `acme/accounts/<hash of the directory URL>/account-key.pem` (one account per CA) and
 * `acme/certificates/<name>/certificate.pem` (the private key, then the chain: one file, written atomically, so a
 * crash never leaves a key and a certificate that do not match) with `state.json` (failures, last attempt and error,
 * the directory that issued the certificate).
 * Private files are 0600 in 0700 directories.
 */
export const makeAcmeStore = (dataDir: string, directory: string) => {
  const root = path.join(dataDir, "acme")
  const accountDir = path.join(root, "accounts", createHash("sha256").update(directory).digest("hex").slice(0, 16))
  const certificateDir = (name: string) => path.join(root, "certificates", name)

  // A typed failure, so each caller decides what a refusal means: a defect would skip the renewal's record of a
  // failed attempt, and the scheduler would then order (and throw away) a new certificate every minute.
  const ensureDir = (dir: string) =>
    Effect.tryPromise({ try: () => fs.mkdir(dir, { recursive: true, mode: 0o700 }), catch: FileSystemFailure.of })
  const writeInDir = (dir: string, file: string, content: string, options: { readonly mode?: number } = {}) =>
    Effect.andThen(ensureDir(dir), writeFileAtomic(path.join(dir, file), content, options))
  const readIfPresent = (file: string) =>
    Effect.tryPromise(() => fs.readFile(file, "utf8")).pipe(
      Effect.map((text): string | undefined => text),
      Effect.catchIf(
        (error) => (error.cause as { code?: string } | undefined)?.code === "ENOENT",
        () => Effect.succeed(undefined)
      ),
      Effect.orDie
    )

  /** The account key for this directory, made (ECDSA P-256) on first use. */
  const accountKey = Effect.gen(function* () {
    const file = path.join(accountDir, "account-key.pem")
    const existing = yield* readIfPresent(file)
    if (existing !== undefined) return Redacted.make(existing)
    yield* Effect.orDie(ensureDir(accountDir))
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString()
    // At start-up, before anything is served: a disk that refuses these stops the start with its reason.
    yield* Effect.orDie(writeFileAtomic(file, pem, { mode: 0o600 }))
    yield* Effect.orDie(writeFileAtomic(path.join(accountDir, "directory.txt"), `${directory}\n`))
    return Redacted.make(pem)
  }).pipe(Effect.withSpan("AcmeStore.accountKey"))

  /**
   * The directories the data dir holds an account for, as each account's `directory.txt` names it (written with the
   * key since the first version): what is known of the CA that issued a certificate stored before its directory was
   * recorded. Read before `accountKey`, which adds the configured one.
   */
  const accountDirectories = Effect.gen(function* () {
    const accounts = path.join(root, "accounts")
    const entries = yield* Effect.tryPromise(() => fs.readdir(accounts, { withFileTypes: true })).pipe(
      Effect.map((found): ReadonlyArray<{ readonly name: string; isDirectory(): boolean }> => found),
      Effect.catchIf(
        (error) => (error.cause as { code?: string } | undefined)?.code === "ENOENT",
        () => Effect.succeed([])
      ),
      Effect.orDie
    )
    const named = yield* Effect.forEach(
      entries.filter((entry) => entry.isDirectory()),
      (entry) => readIfPresent(path.join(accounts, entry.name, "directory.txt"))
    )
    return [...new Set(named.flatMap((text) => (text?.trim() ? [text.trim()] : [])))]
  }).pipe(Effect.withSpan("AcmeStore.accountDirectories"))

  /** The stored certificate of `name`, or `undefined` when there is none or it is unusable (logged). */
  const loadCertificate = (name: string) =>
    Effect.gen(function* () {
      const file = path.join(certificateDir(name), "certificate.pem")
      const text = yield* readIfPresent(file)
      if (text === undefined) return undefined
      const parsed = yield* Effect.result(
        parseCertificatePair(certificateBlocks(text).join("\n"), privateKeyBlock(text) ?? "")
      )
      if (Result.isSuccess(parsed)) return parsed.success
      yield* Effect.logWarning(
        `ignoring the stored ACME certificate ${file}: ${parsed.failure.reason}; obtaining a new one`
      )
      return undefined
    })

  /**
   * Replaces the stored certificate of `name` (key and chain in one atomic write). A disk that refuses it fails the
   * renewal (the old certificate stays, on disk and served), saying why.
   */
  const saveCertificate = (name: string, pair: CertificatePair) =>
    writeInDir(certificateDir(name), "certificate.pem", `${Redacted.value(pair.keyPem)}${pair.certPem}`, {
      mode: 0o600
    }).pipe(
      Effect.mapError(
        (failure) =>
          new AcmeFailed({ certificate: name, detail: `the new certificate could not be stored: ${failure.reason}` })
      )
    )

  const loadRecord = (name: string) =>
    Effect.gen(function* () {
      const text = yield* readIfPresent(path.join(certificateDir(name), "state.json"))
      if (text === undefined) return freshRecord
      return yield* decodeRecord(text).pipe(
        Effect.catch((error) =>
          Effect.as(
            Effect.logWarning(`ignoring the unreadable renewal state of ${name}: ${error.message}`),
            freshRecord
          )
        )
      )
    })

  // The renewal state only paces the next attempts: a disk that refuses it is logged, and the state kept in memory.
  const saveRecord = (name: string, record: RenewalRecord) =>
    writeInDir(certificateDir(name), "state.json", `${JSON.stringify(record, null, 2)}\n`).pipe(
      Effect.catch((failure) =>
        Effect.logWarning(`the renewal state of certificate ${name} could not be stored: ${failure.reason}`)
      )
    )

  return {
    accountDirectories,
    accountKey,
    loadCertificate,
    saveCertificate,
    loadRecord,
    saveRecord,
    certificateDir
  } as const
}

/** The ACME files of the data dir for one directory URL. */
export type AcmeStore = ReturnType<typeof makeAcmeStore>
