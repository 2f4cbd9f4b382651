import {
  type AuthRequestFilter,
  authIdPrefix,
  authIdRandomLength,
  authRequestPageSize,
  InvalidArgument,
  instantMillisOf,
  instantRequirement,
  isPageSize,
  type NewAuthRequest,
  type NewUser,
  pageSizeRequirement
} from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"

const AUTH_ID = /^ghreq_[A-Za-z0-9_-]{24}$/
const USER_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/
// Text that ends up in banners, logs and terminals: printable, one line, bounded. A lone UTF-16 surrogate (\p{Cs},
// as JSON's `\ud800` gives) is no character: stored as UTF-8 it reads back as U+FFFD, which no filter matches.
const SAFE_TEXT = /^[^\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]{1,255}$/u

const invalid = (field: string, message: string) =>
  Effect.fail(new InvalidArgument({ message: `${field}: ${message}`, issues: [{ path: [field], message }] }))

/** Why an auth id is malformed (never echoing it: it may be anything), or undefined when it is well-formed. */
export const authIdProblem = (authId: string): string | undefined => {
  if (authId === "") return "auth_id is required"
  if (AUTH_ID.test(authId)) return undefined
  if (!authId.startsWith(authIdPrefix)) return `auth_id must start with ${authIdPrefix}`
  if (authId.length !== authIdPrefix.length + authIdRandomLength) {
    return `auth_id must be ${authIdPrefix} followed by ${authIdRandomLength} characters`
  }
  return "auth_id may only contain A-Z a-z 0-9 - _ after its prefix"
}

/** Checks an auth id (prefix, length, charset) before anything looks it up. */
export const checkAuthId = (authId: string): Effect.Effect<string, InvalidArgument> => {
  const problem = authIdProblem(authId)
  return problem === undefined ? Effect.succeed(authId) : invalid("auth_id", problem)
}

/** Checks a user name: required, `[a-z0-9][a-z0-9._-]{0,62}`. */
export const checkUserName = (name: string, field = "user"): Effect.Effect<string, InvalidArgument> =>
  name === ""
    ? invalid(field, `${field} is required`)
    : USER_NAME.test(name)
      ? Effect.succeed(name)
      : invalid(field, "must be a lower-case letter or digit, then up to 62 of a-z 0-9 . _ -")

const checkText = (field: string, value: string) =>
  SAFE_TEXT.test(value)
    ? Effect.void
    : invalid(field, value === "" ? "is required" : "must be 1-255 printable characters on one line")

/**
 * Checks what creating a request carries: every field present, printable, bounded. On every create: chained, not
 * a generator.
 */
export const checkNewAuthRequest = (input: NewAuthRequest): Effect.Effect<NewAuthRequest, InvalidArgument> => {
  const fields: ReadonlyArray<readonly [string, string]> =
    input.kind === "registration"
      ? [
          ["registration.machine_key", input.registration.machine_key],
          ["registration.node_key", input.registration.node_key],
          ["registration.hostname", input.registration.hostname]
        ]
      : [
          ["ssh_check.src", input.ssh_check.src],
          ["ssh_check.dst", input.ssh_check.dst],
          ["ssh_check.local_user", input.ssh_check.local_user]
        ]
  const bad = fields.find(([, value]) => !SAFE_TEXT.test(value))
  return bad === undefined ? Effect.succeed(input) : Effect.andThen(checkText(bad[0], bad[1]), Effect.succeed(input))
}

/** Checks a new user: a valid name; display name and e-mail optional, printable, bounded. */
export const checkNewUser = (
  input: NewUser
): Effect.Effect<{ readonly name: string; readonly display_name: string; readonly email: string }, InvalidArgument> =>
  Effect.gen(function* () {
    const name = yield* checkUserName(input.name, "name")
    const display_name = input.display_name ?? ""
    const email = input.email ?? ""
    if (display_name !== "") yield* checkText("display_name", display_name)
    if (email !== "") yield* checkText("email", email)
    return { name, display_name, email }
  })

/** A list filter, checked, with its defaults applied; the cursor (`before`) is still to be found. */
export interface CheckedListFilter {
  readonly state: AuthRequestFilter["state"]
  readonly kind: AuthRequestFilter["kind"]
  readonly limit: number
  readonly before: string | undefined
  readonly src: string | undefined
  readonly dst: string | undefined
  readonly local_user: string | undefined
  /** Epoch milliseconds: a request matches when decided later than this. */
  readonly decidedAfter: number | undefined
}

// The same checks as a client makes before sending (contract's `AuthRequestFilterChecks`), with the same words.
const checkPageSize = (limit: number | undefined) =>
  limit === undefined
    ? Effect.succeed(authRequestPageSize.default)
    : isPageSize(limit)
      ? Effect.succeed(limit)
      : invalid("limit", pageSizeRequirement)

// A value no stored request can have is refused rather than answered with nothing: an empty one most likely
// means a script's variable was unset, and reading it as "any" would answer with everything.
const checkMatch = (field: string, value: string | undefined) =>
  value === undefined || SAFE_TEXT.test(value)
    ? Effect.succeed(value)
    : invalid(
        field,
        value === "" ? "must not be empty (leave it out to match any)" : "must be 1-255 printable characters"
      )

const checkInstant = (field: string, value: string | undefined) => {
  if (value === undefined) return Effect.succeed(undefined)
  // Floored to the millisecond the store keeps: decided_at > floor(t) is decided_at > t for whole milliseconds.
  const ms = instantMillisOf(value)
  return ms === undefined ? invalid(field, instantRequirement) : Effect.succeed(Math.floor(ms))
}

/** Checks a list filter: page size (default and maximum 1000), the cursor's form, the ssh_check fields, the instant. */
export const checkListFilter = (filter: AuthRequestFilter): Effect.Effect<CheckedListFilter, InvalidArgument> =>
  Effect.gen(function* () {
    const before = filter.before
    if (before !== undefined) {
      const problem = authIdProblem(before)
      if (problem !== undefined) return yield* invalid("before", `not an auth_id: ${problem}`)
    }
    return {
      state: filter.state,
      kind: filter.kind,
      limit: yield* checkPageSize(filter.limit),
      before,
      src: yield* checkMatch("src", filter.src),
      dst: yield* checkMatch("dst", filter.dst),
      local_user: yield* checkMatch("local_user", filter.local_user),
      decidedAfter: yield* checkInstant("decided_after", filter.decided_after)
    }
  })
