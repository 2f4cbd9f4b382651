import {
  ProxmoxAccessDenied,
  ProxmoxCertificateMismatch,
  ProxmoxCertificateUntrusted,
  ProxmoxFailed,
  ProxmoxTimedOut,
  ProxmoxUnreachable
} from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import {
  PveCertificateRejected,
  PveCertificateUntrusted,
  type PveHttpRequest,
  type PveHttpResponse,
  type PveSendError,
  sendPveRequest
} from "./PveHttp.js"
import { makePveAgent, type PveTlsOptions } from "./PveTls.js"

/** What a call to a cluster's API can fail with; each names the cluster. */
export type PveError =
  | ProxmoxUnreachable
  | ProxmoxFailed
  | ProxmoxAccessDenied
  | ProxmoxCertificateMismatch
  | ProxmoxCertificateUntrusted
  | ProxmoxTimedOut

/** How Gatehouse signs in, with its secret already read. */
export type PveCredentials =
  | { readonly _tag: "Token"; readonly tokenId: string; readonly secret: Redacted.Redacted<string> }
  | {
      readonly _tag: "Password"
      readonly username: string
      readonly password: Redacted.Redacted<string>
      readonly realm: string | undefined
    }

/** One cluster's API endpoint and how to reach it. */
export interface PveClientOptions {
  readonly cluster: string
  /** `https://host:8006` (a path prefix is kept, for a cluster behind a reverse proxy). */
  readonly url: string
  readonly credentials: PveCredentials
  readonly tls: PveTlsOptions
  /** Per request, including the TLS handshake and reading the whole answer. */
  readonly timeoutMs: number
  /** A ticket older than this is renewed before use (PVE tickets live 2 h). Default 90 min. */
  readonly ticketRenewAfterMs?: number
  /** Connections kept to the API. Default 8. */
  readonly maxSockets?: number
}

/** A typed, authenticated client of one cluster's API: decodes the `{"data": …}` envelope with the given schema. */
export interface PveClient {
  readonly cluster: string
  readonly get: <A>(
    path: string,
    schema: Schema.Decoder<A>,
    query?: Readonly<Record<string, string>>
  ) => Effect.Effect<A, PveError>
  readonly post: <A>(
    path: string,
    schema: Schema.Decoder<A>,
    form?: Readonly<Record<string, string>>
  ) => Effect.Effect<A, PveError>
}

const ticketLifetimeMs = 2 * 60 * 60 * 1000

interface Ticket {
  readonly ticket: string
  readonly csrf: string
  readonly obtainedAt: number
}

const TicketAnswer = Schema.Struct({ ticket: Schema.String, CSRFPreventionToken: Schema.String })

const Envelope = Schema.Struct({ data: Schema.Unknown, errors: Schema.optionalKey(Schema.Unknown) })
const decodeEnvelope = Schema.decodeUnknownOption(Schema.fromJsonString(Envelope))

/** The error text of a failed answer: PVE's reason phrase, with the per-parameter errors of a 400. */
const reasonOf = (response: PveHttpResponse): string => {
  const reason = response.reason.trim() || `HTTP ${response.status}`
  const envelope = decodeEnvelope(response.body)
  const errors = Option.isSome(envelope) ? envelope.value.errors : undefined
  if (errors === undefined || errors === null || typeof errors !== "object") return reason
  const details = Object.entries(errors as Record<string, unknown>).map(([key, text]) => `${key}: ${String(text)}`)
  return details.length === 0 ? reason : `${reason} (${details.join("; ")})`
}

// pveproxy's answer when it cannot reach the node a call is for (proxied to another node of the cluster): the
// pseudo-statuses of its HTTP client (AnyEvent::HTTP), 595 for a failed connection (`No route to host`, the node is
// offline), 596 for a failure during TLS or the request, 597 for one while receiving the answer's body (the node went
// away mid-answer). The cluster answered; the node did not.
const nodeUnreachableStatuses = new Set([595, 596, 597])

/** The node a call is for, when its path names one (`/nodes/<node>/…`; node names are host names, never escaped). */
const nodeOf = (path: string): string | undefined => /^\/nodes\/([^/]+)/.exec(path)?.[1]

/**
 * Opens a client of one cluster. Token auth sends `Authorization: PVEAPIToken=…` on each call; password auth logs
 * in at `/access/ticket`, renews the ticket with the old one before it expires, sends it as a cookie with
 * `CSRFPreventionToken` on writes, and logs in again once when a ticket is refused. The connections close with
 * the scope.
 */
export const makePveClient = Effect.fn("PveClient.make")(function* (options: PveClientOptions) {
  const { cluster } = options
  const baseUrl = new URL(options.url)
  const agent = makePveAgent(options.tls, options.maxSockets ?? 8)
  yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
  const renewAfterMs = options.ticketRenewAfterMs ?? 90 * 60 * 1000

  // A certificate other than the pinned one, or one the CA does not vouch for, is a configuration or security
  // problem: a 502 that is not retried as an outage.
  const unanswered = (error: PveSendError) =>
    error instanceof PveCertificateRejected
      ? new ProxmoxCertificateMismatch({ cluster, expected: error.expected, presented: error.presented })
      : error instanceof PveCertificateUntrusted
        ? new ProxmoxCertificateUntrusted({
            cluster,
            host: error.host,
            trusted_by: error.trustedBy,
            detail: error.detail
          })
        : new ProxmoxUnreachable({ cluster, detail: error.reason })

  const send = (
    request: PveHttpRequest
  ): Effect.Effect<
    PveHttpResponse,
    ProxmoxUnreachable | ProxmoxCertificateMismatch | ProxmoxCertificateUntrusted | ProxmoxTimedOut
  > =>
    sendPveRequest(agent, baseUrl, request).pipe(
      Effect.mapError(unanswered),
      Effect.timeoutOrElse({
        duration: Duration.millis(options.timeoutMs),
        orElse: () =>
          Effect.fail(
            new ProxmoxTimedOut({
              cluster,
              operation: `${request.method} ${request.path}`,
              timeout_ms: options.timeoutMs
            })
          )
      })
    )

  const decode = <A>(
    request: PveHttpRequest,
    response: PveHttpResponse,
    schema: Schema.Decoder<A>
  ): Effect.Effect<A, ProxmoxAccessDenied | ProxmoxFailed | ProxmoxUnreachable> => {
    if (nodeUnreachableStatuses.has(response.status)) {
      const node = nodeOf(request.path)
      const why = `offline or cut off from the rest of the cluster (${response.status}: ${reasonOf(response)})`
      // One node's failure names the node, not the whole cluster, which did answer.
      return Effect.fail(
        node === undefined
          ? new ProxmoxUnreachable({ cluster, detail: `a node of the cluster is ${why}` })
          : new ProxmoxUnreachable({ cluster, node, detail: why })
      )
    }
    if (response.status === 401 || response.status === 403) {
      return Effect.fail(
        new ProxmoxAccessDenied({
          cluster,
          kind: response.status === 401 ? "unauthenticated" : "permission_denied",
          detail: reasonOf(response)
        })
      )
    }
    if (response.status < 200 || response.status > 299) {
      return Effect.fail(new ProxmoxFailed({ cluster, status: response.status, detail: reasonOf(response) }))
    }
    const envelope = decodeEnvelope(response.body)
    if (Option.isNone(envelope)) {
      return Effect.fail(
        new ProxmoxFailed({
          cluster,
          status: response.status,
          detail: `${request.method} ${request.path} answered with something other than Proxmox VE's JSON envelope`
        })
      )
    }
    return Schema.decodeUnknownEffect(schema)(envelope.value.data).pipe(
      Effect.mapError(
        (error) =>
          new ProxmoxFailed({
            cluster,
            status: response.status,
            detail: `unexpected answer to ${request.method} ${request.path}: ${error.message}`
          })
      )
    )
  }

  const credentials = options.credentials
  if (credentials._tag === "Token") {
    const authorization = `PVEAPIToken=${credentials.tokenId}=${Redacted.value(credentials.secret)}`
    const call = <A>(request: PveHttpRequest, schema: Schema.Decoder<A>) =>
      Effect.flatMap(send({ ...request, headers: { authorization } }), (response) => decode(request, response, schema))
    return makeMethods(cluster, call)
  }

  // Password: one ticket shared by every call; logging in and renewing are serialized by the ref.
  const current = yield* SynchronizedRef.make<Option.Option<Ticket>>(Option.none())
  const login = (password: string) =>
    Effect.gen(function* () {
      const request: PveHttpRequest = {
        method: "POST",
        path: "/access/ticket",
        form: {
          username: credentials.username,
          password,
          // PVE appends a given realm to the name even when the name has one (`root@pam@pam`): sent only if not.
          ...(credentials.realm === undefined || credentials.username.includes("@") ? {} : { realm: credentials.realm })
        }
      }
      const answer = yield* Effect.flatMap(send(request), (response) => decode(request, response, TicketAnswer))
      return { ticket: answer.ticket, csrf: answer.CSRFPreventionToken, obtainedAt: yield* Clock.currentTimeMillis }
    })
  const freshLogin = Effect.suspend(() => login(Redacted.value(credentials.password)))
  const ticket = (refused: Option.Option<Ticket>) =>
    SynchronizedRef.modifyEffect(current, (held) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const usable = Option.filter(
          held,
          (t) => now - t.obtainedAt < ticketLifetimeMs && !(Option.isSome(refused) && refused.value === t)
        )
        if (Option.isSome(usable) && now - usable.value.obtainedAt < renewAfterMs) {
          return [usable.value, held] as const
        }
        // Renewing with the old ticket as password keeps working when the password was rotated meanwhile.
        const next = Option.isSome(usable)
          ? yield* Effect.catch(login(usable.value.ticket), () => freshLogin)
          : yield* freshLogin
        return [next, Option.some(next)] as const
      })
    )
  const withTicket = (request: PveHttpRequest, held: Ticket) =>
    send({
      ...request,
      headers: {
        cookie: `PVEAuthCookie=${encodeURIComponent(held.ticket)}`,
        ...(request.method === "GET" ? {} : { csrfpreventiontoken: held.csrf })
      }
    })
  const call = <A>(request: PveHttpRequest, schema: Schema.Decoder<A>) =>
    Effect.gen(function* () {
      const held = yield* ticket(Option.none())
      const response = yield* withTicket(request, held)
      if (response.status !== 401) return yield* decode(request, response, schema)
      // The ticket was refused (expired early, the node restarted with a new key): log in again, once.
      const fresh = yield* ticket(Option.some(held))
      return yield* Effect.flatMap(withTicket(request, fresh), (again) => decode(request, again, schema))
    })
  return makeMethods(cluster, call)
}) as (options: PveClientOptions) => Effect.Effect<PveClient, PveError, Scope.Scope>

const makeMethods = (
  cluster: string,
  call: <A>(request: PveHttpRequest, schema: Schema.Decoder<A>) => Effect.Effect<A, PveError>
): PveClient => ({
  cluster,
  get: (path, schema, query) =>
    call({ method: "GET", path, ...(query === undefined ? {} : { query }) }, schema).pipe(
      Effect.withSpan("PveClient.get", { attributes: { cluster, path } })
    ),
  post: (path, schema, form) =>
    call({ method: "POST", path, ...(form === undefined ? {} : { form }) }, schema).pipe(
      Effect.withSpan("PveClient.post", { attributes: { cluster, path } })
    )
})
