import type { CertInfo, CertRenewFrame } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { print } from "./AuthOutput.js"
import { httpFlags, withClient } from "./HttpConnection.js"
import { failWith } from "./ServerConfig.js"

const renewalText = (c: CertInfo) =>
  c.renewal === null
    ? "renewal: by replacing its files"
    : `next renewal ${c.renewal.next_at}${c.renewal.last_error === null ? "" : `; last attempt ${c.renewal.last_attempt_at} failed: ${c.renewal.last_error}`}`

/** A certificate in a few lines: name, names, validity, and when (and why not) it is renewed. */
export const formatCertInfo = (c: CertInfo): ReadonlyArray<string> => [
  `${c.name}  (${c.provider})  ${c.dns_names.join(", ")}`,
  `  subject ${c.subject}  issuer ${c.issuer}`,
  `  valid ${c.not_before} → ${c.not_after}  ${c.days_left} days left of ${c.lifetime_days}${c.expiring_soon ? "  EXPIRING SOON" : ""}`,
  `  serial ${c.serial}  sha256 ${c.fingerprint_sha256}`,
  `  ${renewalText(c)}`
]

const name = Flag.String("name").pipe(
  Flag.withDescription("Only this certificate (default: every ACME certificate)"),
  Flag.optional
)

const info = Command.make(
  "info",
  httpFlags,
  Effect.fn("gatehouse.cert.info")(function* (flags) {
    const certs = yield* withClient(flags, (c) => c.certs.info())
    yield* print(flags.json, certs, (list) => list.flatMap(formatCertInfo))
  })
).pipe(Command.withDescription("The available certificates: names, validity, days left, renewal state"))

const renew = Command.make(
  "renew",
  { ...httpFlags, name },
  Effect.fn("gatehouse.cert.renew")(function* (flags) {
    const query = Option.isSome(flags.name) ? flags.name.value : undefined
    // Progress lines as they happen (JSON: one frame per line); the result decides the exit code.
    const result = yield* withClient(flags, (c) =>
      Stream.runFoldEffect(
        c.certs.renewWithProgress(query),
        (): CertRenewFrame | undefined => undefined,
        (_, frame) =>
          "progress" in frame
            ? Effect.as(Console.log(flags.json ? JSON.stringify(frame) : frame.progress), frame)
            : Effect.succeed(frame)
      )
    )
    if (result === undefined || !("ok" in result))
      return yield* failWith(["gatehouse: the renewal ended without a result"])
    if (flags.json) yield* Console.log(JSON.stringify(result))
    if (!result.ok) return yield* failWith([`gatehouse: ${result.error?.message ?? "the renewal failed"}`])
    if (!flags.json) yield* Effect.forEach((result.certs ?? []).flatMap(formatCertInfo), (line) => Console.log(line))
  })
).pipe(Command.withDescription("Renew the ACME certificates now, showing each step (over HTTP)"))

/** `gatehouse cert ...`: the server's certificates over the HTTP API. */
export const certCommand = Command.make("cert").pipe(
  Command.withDescription("Certificates: info, renew (over HTTP)"),
  Command.withSubcommands([info, renew])
)
