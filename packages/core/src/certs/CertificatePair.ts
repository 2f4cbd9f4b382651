import { createPrivateKey, X509Certificate } from "node:crypto"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

/** A certificate chain (leaf first) and its private key that were checked to belong together. */
export interface CertificatePair {
  /** The PEM chain as read or issued: the leaf, then its intermediates. */
  readonly certPem: string
  readonly keyPem: Redacted.Redacted<string>
  readonly leaf: X509Certificate
  readonly chain: ReadonlyArray<X509Certificate>
}

/** Why PEM text is not a usable certificate/key pair, in words for an operator (never with key material). */
export class CertificateProblem extends Data.TaggedError("CertificateProblem")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g
const PRIVATE_KEY = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]+?-----END \1PRIVATE KEY-----/

// PKCS#8 `ENCRYPTED PRIVATE KEY`, or OpenSSL's older encryption of a PKCS#1/SEC1 block (`Proc-Type: 4,ENCRYPTED`).
const ENCRYPTED_KEY = /^-----BEGIN ENCRYPTED PRIVATE KEY-----|^Proc-Type:\s*4,\s*ENCRYPTED/m

/** Whether a private key block needs a passphrase: without one, its parser only says it is not a valid key. */
const isEncrypted = (keyBlock: string) => ENCRYPTED_KEY.test(keyBlock)

/** The PEM blocks of every certificate in `text`, in order. */
export const certificateBlocks = (text: string): ReadonlyArray<string> => text.match(CERTIFICATE) ?? []

/** The first private key block in `text` (PKCS#8, SEC1 or PKCS#1), or `undefined`. */
export const privateKeyBlock = (text: string): string | undefined => PRIVATE_KEY.exec(text)?.[0]

/**
 * Parses a PEM chain and a PEM private key and checks that the key is the leaf's (`X509Certificate.checkPrivateKey`)
 * and that each certificate of the chain was issued by the next one ({@link brokenLink}).
 * Expiry is not checked here: an expired certificate is still listed (with negative `days_left`) and renewed (the
 * file provider decides what to do with one, see `FileCertificateLoad`).
 */
export const parseCertificatePair = (
  certPem: string,
  keyPem: string
): Effect.Effect<CertificatePair, CertificateProblem> =>
  Effect.gen(function* () {
    const blocks = certificateBlocks(certPem)
    if (blocks.length === 0)
      return yield* new CertificateProblem({ reason: "no PEM certificate in the certificate file" })
    const chain = yield* Effect.try({
      try: () => blocks.map((block) => new X509Certificate(block)),
      catch: (error) => new CertificateProblem({ reason: `not a valid X.509 certificate: ${messageOf(error)}` })
    })
    const keyBlock = privateKeyBlock(keyPem)
    if (keyBlock === undefined) return yield* new CertificateProblem({ reason: "no PEM private key in the key file" })
    if (isEncrypted(keyBlock)) {
      return yield* new CertificateProblem({
        reason:
          "the private key is encrypted (passphrase-protected), which is not supported: store it decrypted " +
          "(openssl pkey -in key.pem -out plain-key.pem), readable by the server's user only"
      })
    }
    const key = yield* Effect.try({
      try: () => createPrivateKey(keyBlock),
      // The parser's message never quotes the key, but keep it short and generic anyway.
      catch: () => new CertificateProblem({ reason: "the key file does not hold a valid private key" })
    })
    const leaf = chain[0]!
    if (!leaf.checkPrivateKey(key)) {
      const keyAt = chain.findIndex((certificate) => certificate.checkPrivateKey(key))
      return yield* new CertificateProblem({
        reason:
          keyAt === -1
            ? "the private key does not match the certificate"
            : `the certificate of the private key is certificate ${keyAt + 1} of the certificate file: it must ` +
              "come first, then the certificates that issued it"
      })
    }
    const broken = brokenLink(chain)
    if (broken !== undefined) return yield* new CertificateProblem({ reason: broken })
    return { certPem: blocks.join("\n").concat("\n"), keyPem: Redacted.make(keyBlock.concat("\n")), leaf, chain }
  })

/**
 * Why `chain` is not in order, each certificate followed by the one that issued it (its name, key identifier and
 * signature), or `undefined` when it is. A client given a certificate that did not issue the one before it cannot
 * build a path to its root: it refuses the connection, which the server would only learn from its users.
 */
export const brokenLink = (chain: ReadonlyArray<X509Certificate>): string | undefined => {
  for (let i = 0; i + 1 < chain.length; i++) {
    const [subject, next] = [chain[i]!, chain[i + 1]!]
    if (!subject.checkIssued(next) || !subject.verify(next.publicKey)) {
      return (
        `certificate ${i + 2} of the certificate file (${oneLine(next.subject)}) did not issue certificate ${i + 1} ` +
        `(${oneLine(subject.subject)}, issued by ${oneLine(subject.issuer)}): each certificate must be followed by ` +
        "the one that issued it"
      )
    }
  }
  return undefined
}

// Node gives distinguished names one attribute a line.
const oneLine = (name: string) => name.replaceAll("\n", ", ")

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
