import type { CertRenewProgress } from "@gatehouse-edge/contract/domain"
import { AcmeChallengeFailed, AcmeFailed, AcmeUnreachable } from "@gatehouse-edge/contract/domain"
import type * as Acme from "acme-client"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { AcmeCertificateConfig } from "../config/ConfigSections.js"
import { acmeModule } from "./AcmeClientModule.js"
import { networkErrorOf } from "./AcmeTransport.js"
import { parseCertificatePair } from "./CertificatePair.js"
import { challengePublication, whilePublished } from "./ChallengePublication.js"
import type { DnsProvider } from "./dns/DnsProvider.js"
import type { Http01Responder } from "./Http01Responder.js"

/** Everything one order needs. */
export interface IssueOptions {
  readonly directory: string
  readonly email: string | undefined
  readonly accountKey: Redacted.Redacted<string>
  readonly certificate: AcmeCertificateConfig
  /** Present for an `http-01` certificate: where the key authorizations are served during the order. */
  readonly http01: Http01Responder | undefined
  /** Present for a `dns-01` certificate. */
  readonly dns: DnsProvider["Service"] | undefined
  readonly progress: (line: CertRenewProgress) => Effect.Effect<void>
}

type AcmeError = AcmeUnreachable | AcmeFailed

interface AxiosLike {
  readonly isAxiosError?: boolean
  readonly response?: unknown
  readonly code?: string
  readonly message?: string
}

/**
 * A failed acme-client call as a Gatehouse error: no HTTP answer at all (refused, timed out, TLS not trusted) means
 * the server is unreachable; anything else is the server's refusal, whose problem `detail` acme-client puts in the
 * message.
 */
const classify =
  (directory: string, certificate: string) =>
  (error: unknown): AcmeError => {
    const e = (typeof error === "object" && error !== null ? error : {}) as AxiosLike
    const message = (e.message ?? String(error)).replace(/\s+/g, " ").trim()
    if (e.isAxiosError === true && e.response === undefined) {
      return new AcmeUnreachable({ directory, detail: e.code === undefined ? message : `${e.code}: ${message}` })
    }
    // acme-client's error interceptor reads `response.config` of a request that got no response (see AcmeTransport).
    if (error instanceof TypeError && /reading 'config'/.test(message)) {
      return new AcmeUnreachable({ directory, detail: networkErrorOf(directory) ?? "no response (timed out)" })
    }
    return new AcmeFailed({ certificate, detail: message || "the ACME server refused the request" })
  }

/** The key authorization for a challenge, and what each challenge type publishes. */
type Challenge = Awaited<ReturnType<Acme.Client["getAuthorizations"]>>[number]["challenges"][number]

/**
 * Obtains a certificate from the ACME server (RFC 8555): account (created or found by its key), order for every
 * name, one challenge per name (answered over HTTP-01 or published in DNS, then validated by the CA), a new P-256
 * key and CSR, finalize, download the chain. Progress is reported at each step. Nothing is written to disk here.
 */
export const issueCertificate = (options: IssueOptions) =>
  Effect.gen(function* () {
    const acme = yield* acmeModule
    const { certificate, directory } = options
    const name = certificate.name
    const call = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: classify(directory, name) })
    const say = (step: CertRenewProgress["step"], progress: string, domain?: string) =>
      options.progress({ progress, step, certificate: name, ...(domain === undefined ? {} : { domain }) })

    const client = new acme.Client({
      directoryUrl: directory,
      accountKey: Redacted.value(options.accountKey),
      // Status polls: quick at first (a CA often validates within a second), at most every 5 s, for about a minute.
      backoffMin: 250,
      backoffMax: 5000,
      backoffAttempts: 16
    })
    yield* call(() =>
      client.createAccount({
        termsOfServiceAgreed: true,
        ...(options.email === undefined ? {} : { contact: [`mailto:${options.email}`] })
      })
    )
    const order = yield* call(() =>
      client.createOrder({ identifiers: certificate.domains.map((value) => ({ type: "dns", value })) })
    )
    yield* say("order_placed", `order placed for ${certificate.domains.join(", ")}`)
    const nameOf = (a: { readonly identifier: { readonly value: string }; readonly wildcard?: boolean }) =>
      a.wildcard === true ? `*.${a.identifier.value}` : a.identifier.value
    // In the configured order, so progress reads the same every time (a CA lists them in any order).
    const authorizations = (yield* call(() => client.getAuthorizations(order))).sort(
      (a, b) => certificate.domains.indexOf(nameOf(a)) - certificate.domains.indexOf(nameOf(b))
    )

    for (const authorization of authorizations) {
      const base = authorization.identifier.value
      const domain = nameOf(authorization)
      if (authorization.status === "valid") {
        yield* say("validated", `${domain} validated (authorization still valid)`, domain)
        continue
      }
      const challenge = authorization.challenges.find((c: Challenge) => c.type === certificate.challenge)
      const failChallenge = (detail: string) =>
        new AcmeChallengeFailed({ certificate: name, domain, challenge: certificate.challenge, detail })
      if (challenge === undefined) {
        return yield* failChallenge(`the CA offers no ${certificate.challenge} challenge for this name`)
      }
      const keyAuthorization = yield* call(() => client.getChallengeKeyAuthorization(challenge))
      const publication = challengePublication(
        { challenge: certificate.challenge, http01: options.http01, dns: options.dns },
        base,
        challenge.token,
        keyAuthorization,
        failChallenge
      )
      yield* whilePublished(
        publication,
        Effect.gen(function* () {
          yield* say("challenge_served", `${certificate.challenge} challenge for ${domain} served`, domain)
          yield* call(() => client.completeChallenge(challenge))
          yield* call(() => client.waitForValidStatus(challenge)).pipe(
            Effect.mapError((error) => (error instanceof AcmeFailed ? failChallenge(error.detail) : error))
          )
          yield* say("validated", `${domain} validated by the CA`, domain)
        })
      )
    }

    const keyPem = (yield* call(() => acme.crypto.createPrivateEcdsaKey("P-256"))).toString()
    const first = certificate.domains[0]!
    const [, csr] = yield* call(() =>
      acme.crypto.createCsr(
        // The subject's common name is limited to 64 characters; the names that count are the SANs.
        { ...(first.length <= 64 ? { commonName: first } : {}), altNames: [...certificate.domains] },
        keyPem
      )
    )
    const finalized = yield* call(() => client.finalizeOrder(order, csr))
    const chain = yield* call(() => client.getCertificate(finalized))
    const pair = yield* parseCertificatePair(chain, keyPem).pipe(
      Effect.mapError(
        (problem) =>
          new AcmeFailed({ certificate: name, detail: `the issued certificate is unusable: ${problem.reason}` })
      )
    )
    yield* say(
      "issued",
      `certificate issued (serial ${pair.leaf.serialNumber.toUpperCase()}, valid until ${new Date(Date.parse(pair.leaf.validTo)).toISOString()})`
    )
    return pair
  })
