import type { AuthRequest, EventInput, NewAuthRequest } from "@gatehouse-edge/contract/domain"
import {
  AuthRequestAlreadyDecided,
  AuthRequestEvents,
  AuthRequestExpired,
  AuthRequestNotFound
} from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { renderRequest } from "./AuthRequestRendering.js"
import type { AuthRequestRepository, RequestRecord } from "./AuthRequestRepository.js"
import type { Batch, Change, Outcome } from "./AuthRequestWriter.js"

type Repository = AuthRequestRepository["Service"]

const none = new Map<never, never>()

/**
 * A request as the API shows it, when it has no user or node to look up: every request but a registered one,
 * which `register` renders itself.
 */
export const renderPlain = (record: RequestRecord): AuthRequest => renderRequest(record, none, none)

/** The event that records a request's new state (`created`, `approved`, `rejected`, `expired`). */
export const eventOf = (request: AuthRequest, expiredBy: "ttl" | "pending_cap" = "ttl"): EventInput => {
  if (request.state === "expired") {
    return AuthRequestEvents.expired({ auth_id: request.auth_id, kind: request.kind, reason: expiredBy })
  }
  const data = {
    auth_id: request.auth_id,
    kind: request.kind,
    ...(request.decided_by === undefined ? {} : { decided_by: request.decided_by }),
    ...(request.user === undefined ? {} : { user: request.user.name })
  }
  return request.state === "approved"
    ? AuthRequestEvents.approved(data)
    : request.state === "rejected"
      ? AuthRequestEvents.rejected(data)
      : AuthRequestEvents.created(data)
}

/**
 * Why a request cannot move to `target` at `now`: none while it is pending and in time, or when it already has
 * that state (the same verdict again is fine).
 */
export const refusal = (record: RequestRecord, target: RequestRecord["state"], now: number) => {
  if (record.state === target) return undefined
  if (record.state === "pending" && record.expires_at > now) return undefined
  if (record.state === "expired" || record.state === "pending") {
    return new AuthRequestExpired({ auth_id: record.auth_id })
  }
  return new AuthRequestAlreadyDecided({ auth_id: record.auth_id, state: record.state })
}

/** The stored fields of a new pending request. */
const newRecord = (authId: string, input: NewAuthRequest, now: number, ttlMs: number): RequestRecord => ({
  auth_id: authId,
  kind: input.kind,
  state: "pending",
  created_at: now,
  expires_at: now + ttlMs,
  decided_at: null,
  decided_by: null,
  user_id: null,
  node_id: null,
  machine_key: input.kind === "registration" ? input.registration.machine_key : null,
  node_key: input.kind === "registration" ? input.registration.node_key : null,
  hostname: input.kind === "registration" ? input.registration.hostname : null,
  src: input.kind === "ssh_check" ? input.ssh_check.src : null,
  dst: input.kind === "ssh_check" ? input.ssh_check.dst : null,
  local_user: input.kind === "ssh_check" ? input.ssh_check.local_user : null
})

const succeeded = <A>(answer: A, changed: ReadonlyArray<AuthRequest>, events: ReadonlyArray<EventInput>) =>
  ({ answer: Exit.succeed(answer), changed, events }) as Outcome<A, never>

/**
 * A new pending request; past the pending cap of its kind the oldest pending ones of that kind expire first
 * (`pending_cap`). The cap holds per kind so that one kind cannot push out the other: the SSH check gate's key,
 * which may create only `ssh_check` requests, must not expire the registrations an operator has yet to see, nor a
 * flood of registrations the logins waiting at the gate. The batch counts a kind's pending requests once; each
 * change keeps the count current (a create adds one, a verdict and a push-out remove the unexpired ones they
 * change; a push-out takes only unexpired ones), which is what counting again would return: every auth-request
 * write holds the event bus, so nothing else changes them meanwhile.
 */
export const create =
  (
    repository: Repository,
    config: { readonly ttlMs: number; readonly maxPending: number },
    authId: string,
    input: NewAuthRequest
  ): Change<AuthRequest, never> =>
  (batch: Batch) =>
    Effect.gen(function* () {
      const kind = input.kind
      const pending = batch.pending.get(kind) ?? (yield* repository.countPending(kind, batch.now))
      const pushedOut =
        pending >= config.maxPending
          ? yield* repository.expireOldest(kind, pending - config.maxPending + 1, batch.now)
          : []
      const record = newRecord(authId, input, batch.now, config.ttlMs)
      yield* repository.insertRequest(record)
      batch.pending.set(kind, pending - pushedOut.length + 1)
      const expired = pushedOut.map(renderPlain)
      const created = renderPlain(record)
      return succeeded(
        created,
        [...expired, created],
        [...expired.map((r) => eventOf(r, "pending_cap")), eventOf(created)]
      )
    })

/**
 * pending → `to` (approved or rejected), decided by `by`. Refused, having written nothing, when the request is
 * unknown, past its time, or decided otherwise; the same verdict again answers the stored one.
 */
export const decide =
  (repository: Repository, authId: string, to: "approved" | "rejected", by: string): Change<AuthRequest, DecideError> =>
  (batch: Batch) =>
    Effect.flatMap(repository.decide({ authId, to, at: batch.now, by }), (changed) => {
      if (Option.isSome(changed)) {
        const counted = batch.pending.get(changed.value.kind)
        if (counted !== undefined) batch.pending.set(changed.value.kind, counted - 1)
        const decided = renderPlain(changed.value)
        return Effect.succeed(succeeded(decided, [decided], [eventOf(decided)]))
      }
      // Not changed: decided before (the same verdict is fine), or past its time, or unknown.
      return Effect.map(repository.findRequest(authId), (found): Outcome<AuthRequest, DecideError> => {
        if (Option.isNone(found)) return refused(new AuthRequestNotFound({ auth_id: authId }))
        const current = found.value
        if (current.state === to) return succeeded(renderPlain(current), [], [])
        return refused(refusal(current, to, batch.now) ?? new AuthRequestExpired({ auth_id: authId }))
      })
    })

/** Why a verdict was refused. */
export type DecideError = AuthRequestNotFound | AuthRequestExpired | AuthRequestAlreadyDecided

const refused = (error: DecideError): Outcome<AuthRequest, DecideError> => ({
  answer: Exit.fail(error),
  changed: [],
  events: []
})
