import { type AuthRequest, isFinalState } from "@gatehouse-edge/core/domain"
import type { AuthServiceCallError, AuthServiceEffectClient } from "@gatehouse-edge/transport-grpc/client"
import { Clock, Data, Duration, Effect, Option, Schedule, Stream } from "effect"
import type { PolicyRule } from "./GateConfig.js"
import type { Login } from "./Policy.js"

/** What the gate does with a login: let it through (with a line to show the user, if any), or refuse it. */
export type Verdict =
  | { readonly _tag: "Approved"; readonly message: string | undefined }
  | {
      readonly _tag: "Denied"
      readonly message: string
      /** Why, for the gate's log only: the user is not told the server's address or the network's state. */
      readonly detail?: string | undefined
    }

const approved = (message?: string): Verdict => ({ _tag: "Approved", message })
const denied = (message: string, detail?: string): Verdict => ({
  _tag: "Denied",
  message: `Gatehouse: access denied: ${message}`,
  detail
})

/** The watch ended without a final state (the server shut down gracefully): watch again. */
class WatchEnded extends Data.TaggedError("WatchEnded") {}

// A server restart or a network blip: the request is stored, so watching again gets its state. Told by the gRPC
// status, as gRPC clients decide on retries: a stopping server's UNAVAILABLE carries the machine code
// `shutting_down`, a proxy's `bad_gateway`; the code names the cause, the status says that a retry may work.
const isTransient = (error: AuthServiceCallError | WatchEnded) =>
  error instanceof WatchEnded || error.statusName === "UNAVAILABLE" || error.statusName === "DEADLINE_EXCEEDED"

/** How long the gate keeps trying to reach the server after the request should have expired. */
const reconnectGraceMs = 30_000

/** The text the held user sees: which request, and the command that approves it. */
export const bannerFor = (request: AuthRequest): string => {
  const check = request.ssh_check!
  return [
    "Gatehouse: this login needs an operator's approval.",
    `  request:  ${request.auth_id}`,
    `  login:    ${check.local_user}@${check.dst} from ${check.src}`,
    `  approve:  gatehouse auth approve --auth-id ${request.auth_id}`,
    `  reject:   gatehouse auth reject --auth-id ${request.auth_id}`,
    `Waiting until ${request.expires_at} (Ctrl-C gives up; the request stays open until then).`
  ].join("\n")
}

/** Whether an approved request covers the login at `now`: same source, user and (unless scoped to the source) host. */
const covers = (request: AuthRequest, login: Login, rule: PolicyRule, now: number) => {
  const check = request.ssh_check
  return (
    request.state === "approved" &&
    check !== undefined &&
    check.src === login.src &&
    check.local_user === login.localUser &&
    (rule.checkScope === "source" || check.dst === login.dst) &&
    request.decided_at !== undefined &&
    Date.parse(request.decided_at) >= now - rule.checkPeriodMs
  )
}

/**
 * An approved `ssh_check` for this login decided within the rule's check period. With `check_scope: source` the
 * destination does not matter, so one approval covers every host of that source. The history lives in Gatehouse,
 * so every gate (one per host) sees approvals given through any other. The server filters and cuts the list:
 * one request at most comes back, however many approvals it holds.
 */
export const recentApproval = (client: AuthServiceEffectClient, login: Login, rule: PolicyRule) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const found = yield* client.list({
      state: "approved",
      kind: "ssh_check",
      src: login.src,
      local_user: login.localUser,
      ...(rule.checkScope === "source" ? {} : { dst: login.dst }),
      // Exclusive, and the period includes its first millisecond: an approval decided at now - period still counts.
      decided_after: new Date(now - rule.checkPeriodMs - 1).toISOString(),
      limit: 1
    })
    // Checked again here: a server older than these filters skips them (proto3 ignores unknown fields) and answers
    // with other logins' approvals, which must never let this one in.
    return Option.fromUndefinedOr(found.find((request) => covers(request, login, rule, now)))
  })

/**
 * The request's final state. Reconnects while the server is unreachable (a restarted server still has the
 * request and its verdict) until shortly after the request's expiry, then gives up. The expiry is the request's
 * lifetime counted on this machine's clock from now (just after the request came back): the server's timestamps
 * read against this clock would cut the wait short, or make it never end, by however far the two clocks differ.
 */
const finalState = (client: AuthServiceEffectClient, request: AuthRequest) => {
  const lifetimeMs = Date.parse(request.expires_at) - Date.parse(request.created_at)
  const deadline = Duration.millis(Math.max(0, lifetimeMs) + reconnectGraceMs)
  return client.watch(request.auth_id).pipe(
    Stream.filter((state) => isFinalState(state.state)),
    Stream.runHead,
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(new WatchEnded()), onSome: Effect.succeed })),
    Effect.retry({ schedule: Schedule.spaced("1 second"), while: isTransient }),
    Effect.timeoutOption(deadline)
  )
}

const verdictOf = (request: AuthRequest): Verdict => {
  switch (request.state) {
    case "approved":
      return approved(`Gatehouse: approved by ${request.decided_by ?? "an operator"}.`)
    case "rejected":
      return denied(`request ${request.auth_id} was rejected by ${request.decided_by ?? "an operator"}.`)
    case "expired":
      return denied(`request ${request.auth_id} expired without a decision.`)
    default:
      return denied(`request ${request.auth_id} ended as ${request.state}.`)
  }
}

/** Where the gate counts the requests a source holds open (see `maxWaitingPerSource` in SshGate.ts). */
export interface OpenRequests {
  /** Takes a place for a new request of the login's source, or answers the denial when it has none left. */
  readonly take: () => Verdict | undefined
  /** The request made in that place (its expiry bounds how long an abandoned login keeps the place). */
  readonly created: (request: AuthRequest) => void
}

const unlimited: OpenRequests = { take: () => undefined, created: () => {} }

/**
 * Decides a login the policy matched: `accept` passes, `reject` refuses, `check` passes at once when a recent
 * approval covers it, otherwise takes a place in `open`, creates an `ssh_check` request, shows `notify` the banner
 * and waits for the verdict. Fails closed: when Gatehouse cannot be asked, the login is refused with the reason.
 */
export const decide = (
  client: AuthServiceEffectClient,
  login: Login,
  rule: PolicyRule,
  notify: (text: string) => void,
  open: OpenRequests = unlimited
): Effect.Effect<Verdict> =>
  Effect.gen(function* () {
    if (rule.action === "accept") return approved()
    if (rule.action === "reject") return denied("the policy refuses this login.")
    const recent = yield* recentApproval(client, login, rule)
    if (Option.isSome(recent)) {
      const until = new Date(Date.parse(recent.value.decided_at!) + rule.checkPeriodMs).toISOString()
      return approved(
        `Gatehouse: covered by ${recent.value.auth_id} (approved by ${recent.value.decided_by}) until ${until}.`
      )
    }
    // Asked after the recent approvals: a source at its limit is still let in by an approval covering it.
    const refused = open.take()
    if (refused !== undefined) return refused
    // Told as one step with the call: a client leaving while the request is made must not free its place while the
    // server may have the request.
    const request = yield* Effect.uninterruptible(
      Effect.tap(
        client.create({
          kind: "ssh_check",
          ssh_check: { src: login.src, dst: login.dst, local_user: login.localUser }
        }),
        (created) => Effect.sync(() => open.created(created))
      )
    )
    notify(bannerFor(request))
    const final = yield* finalState(client, request)
    return Option.match(final, {
      onNone: () => denied(`Gatehouse could not be reached to learn the verdict on ${request.auth_id}.`),
      onSome: verdictOf
    })
  }).pipe(
    Effect.catch((error) =>
      Effect.succeed(
        error instanceof WatchEnded
          ? denied("the approval service ended the wait.")
          : // The gate's key is refused (revoked, expired, or without auth_requests:create): waiting will not help.
            error.statusName === "PERMISSION_DENIED" || error.statusName === "UNAUTHENTICATED"
            ? denied(
                "the approval service refused this gate's credentials; tell the administrator.",
                `${error.statusName}: ${error.message}`
              )
            : denied(
                "the approval service could not be reached; try again later.",
                `${error.statusName}: ${error.message}`
              )
      )
    )
  )
