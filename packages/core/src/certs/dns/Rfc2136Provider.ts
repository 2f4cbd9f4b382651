import { randomInt } from "node:crypto"
import type * as DnsPacket from "dns-packet"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type { AcmeDns01Config } from "../../config/ConfigSections.js"
import { readSecret } from "../../config/ReadSecret.js"
import { lazyModule } from "../../util/LazyModule.js"
import { type ChallengeRecord, DnsProvider, DnsProviderFailed } from "./DnsProvider.js"
import { exchangeTcp } from "./DnsTcp.js"
import { type TxtChange, txtQuery, updateMessage } from "./DnsWire.js"
import { readResponseTsig, signMessage, type TsigAlgorithm, tsigErrorName, verifyResponse } from "./Tsig.js"

// Loaded with the first DNS answer: only a server that publishes DNS-01 challenges needs it.
const dnsPacket = lazyModule(() => import("dns-packet"))

/** What the RFC 2136 provider needs: the primary server of the zone and a TSIG key it accepts updates with. */
export interface Rfc2136Options {
  readonly server: { readonly host: string; readonly port: number }
  readonly zone: string
  readonly keyName: string
  readonly keyAlgorithm: TsigAlgorithm
  /** The key's secret, base64 as `tsig-keygen` and `keymgr` print it. */
  readonly keySecret: Redacted.Redacted<string>
  readonly ttlSeconds: number
  readonly propagationTimeoutMs: number
  /** How often the server is asked whether the record is there yet (500 ms). */
  readonly pollIntervalMs?: number
}

type Decoded = ReturnType<typeof DnsPacket.decode> & { readonly rcode?: string }

const failed = (detail: string) => new DnsProviderFailed({ detail })

const decode = (response: Buffer) =>
  Effect.flatMap(dnsPacket, (module) =>
    Effect.try({
      try: (): Decoded => module.decode(response),
      catch: () => failed("the DNS server sent a malformed answer")
    })
  )

const txtValues = (answer: Decoded) =>
  (answer.answers ?? []).flatMap((record) =>
    record.type === "TXT"
      ? [Buffer.concat((record.data as ReadonlyArray<Buffer>).map((b) => Buffer.from(b))).toString("utf8")]
      : []
  )

/**
 * A {@link DnsProvider} over RFC 2136 dynamic updates signed with TSIG (RFC 8945), sent over TCP to the zone's
 * primary server; the response must carry a TSIG signature that verifies. Propagation is checked on the same server
 * (the one the update went to); secondaries follow it by NOTIFY and zone transfer.
 */
export const make = (options: Rfc2136Options): DnsProvider["Service"] => {
  const label = `${options.server.host}:${options.server.port}`
  const key = {
    name: options.keyName,
    algorithm: options.keyAlgorithm,
    secret: Buffer.from(Redacted.value(options.keySecret), "base64")
  }

  const update = Effect.fnUntraced(function* (changes: ReadonlyArray<TxtChange>) {
    const id = randomInt(65536)
    const message = yield* Effect.try({
      try: () => updateMessage(id, options.zone, changes),
      catch: (error) => failed(`cannot encode the update: ${(error as Error).message}`)
    })
    const signedAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const { signed, mac } = signMessage(message, key, signedAt)
    const response = yield* exchangeTcp(options.server, signed)
    const decoded = yield* decode(response)
    const tsigRecord = (decoded.additionals ?? []).find((record) => record.type === "TSIG")
    const tsig =
      tsigRecord === undefined
        ? undefined
        : yield* Effect.try({
            try: () => readResponseTsig(response, (tsigRecord as { readonly data: Buffer }).data, tsigRecord.name),
            catch: () => failed("the DNS server's TSIG record is malformed")
          })
    if (decoded.rcode !== "NOERROR") {
      const why = tsig !== undefined && tsig.error !== 0 ? ` (TSIG ${tsigErrorName(tsig.error)})` : ""
      return yield* failed(`DNS update of zone ${options.zone} at ${label} refused: ${decoded.rcode}${why}`)
    }
    if (tsig === undefined) return yield* failed(`the DNS server ${label} did not sign its answer`)
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const problem = verifyResponse(response, tsig, key, mac, now)
    if (problem !== undefined) return yield* failed(`DNS update at ${label}: ${problem}`)
  })

  const visible = (record: ChallengeRecord) =>
    Effect.gen(function* () {
      const response = yield* exchangeTcp(options.server, txtQuery(randomInt(65536), record.fqdn))
      return txtValues(yield* decode(response)).includes(record.value)
    })

  const pollEvery = Duration.millis(options.pollIntervalMs ?? 500)

  return DnsProvider.of({
    present: Effect.fn("Rfc2136Provider.present")(function* (record: ChallengeRecord) {
      yield* update([{ action: "add", name: record.fqdn, value: record.value, ttl: options.ttlSeconds }])
    }),
    cleanup: Effect.fn("Rfc2136Provider.cleanup")(function* (record: ChallengeRecord) {
      yield* update([{ action: "delete", name: record.fqdn, value: record.value, ttl: 0 }])
    }),
    waitForPropagation: Effect.fn("Rfc2136Provider.waitForPropagation")(function* (record: ChallengeRecord) {
      yield* visible(record).pipe(
        Effect.repeat({ until: (seen) => seen, schedule: Schedule.spaced(pollEvery) }),
        Effect.timeoutOrElse({
          duration: Duration.millis(options.propagationTimeoutMs),
          orElse: () =>
            Effect.fail(
              failed(
                `the TXT record ${record.fqdn} was not visible at ${label} within ${options.propagationTimeoutMs} ms`
              )
            )
        })
      )
    })
  })
}

/** The RFC 2136 provider of `acme.dns01` (reads `key_secret_file` when built). */
export const layer = (config: AcmeDns01Config) =>
  Layer.effect(
    DnsProvider,
    Effect.map(readSecret(config.keySecret), (keySecret) =>
      make({
        server: config.server,
        zone: config.zone,
        keyName: config.keyName,
        keyAlgorithm: config.keyAlgorithm,
        keySecret,
        ttlSeconds: config.ttlSeconds,
        propagationTimeoutMs: config.propagationTimeoutMs
      })
    )
  )
