import { createHash } from "node:crypto"
import * as Duration from "effect/Duration"
import type * as Cookies from "effect/http/Cookies"

/**
 * Cookies binding pending OIDC sign-ins to the browser that started them: one per sign-in, named after its state,
 * so a second start (another tab, a double click) does not overwrite the first one's and fail its callback.
 */
const PREFIX = "gatehouse_oidc_state_"
// The start (`/api/v1/auth/login`) receives them too, to count them; the callback (`/api/v1/auth/callback`)
// picks its sign-in's by name.
const PATH = "/api/v1/auth"
/**
 * Sign-ins one browser may have pending at once: a few tabs and a double click. A browser that keeps starting
 * sign-ins loses its oldest pending ones instead of sending an ever longer `Cookie` header.
 */
export const MaxPendingOidcStates = 4
// As long as the server keeps a pending sign-in.
const MAX_AGE = Duration.minutes(10)

type CookieEntry = readonly [name: string, value: string, options: Cookies.Cookie["options"]]

const nameOf = (state: string) => `${PREFIX}${createHash("sha256").update(state).digest("hex").slice(0, 8)}`

const entry = (name: string, value: string, secure: boolean, maxAge: Duration.Duration): CookieEntry => [
  name,
  value,
  { path: PATH, httpOnly: true, sameSite: "lax", secure, maxAge }
]

// `<started at, epoch ms>.<state>`: the start time says which pending sign-ins are the oldest. The state is
// base64url, without a dot.
const parse = (value: string) => {
  const dot = value.indexOf(".")
  const startedAt = Number(value.slice(0, dot))
  return dot > 0 && Number.isSafeInteger(startedAt) ? { startedAt, state: value.slice(dot + 1) } : undefined
}

/**
 * The cookies a started sign-in sets: its own, and the expiry of the oldest of the browser's pending ones (`sent`,
 * the request's cookies) beyond {@link MaxPendingOidcStates} with it.
 */
export const startedStateCookies = (
  sent: Readonly<Record<string, string>>,
  state: string,
  now: number,
  secure: boolean
): ReadonlyArray<CookieEntry> => {
  // Newest first. Sign-ins started in the same millisecond keep the order the browser sent them in: the order they
  // were set in (RFC 6265 §5.4), the older first.
  const pending = Object.entries(sent)
    .filter(([name]) => name.startsWith(PREFIX))
    .map(([name, value], order) => ({ name, order, startedAt: parse(value)?.startedAt ?? -1 }))
    .sort((a, b) => b.startedAt - a.startedAt || b.order - a.order)
  return [
    ...pending.slice(MaxPendingOidcStates - 1).map(({ name }) => entry(name, "", secure, Duration.zero)),
    entry(nameOf(state), `${now}.${state}`, secure, MAX_AGE)
  ]
}

/** The state this browser holds for a callback's `state`: `undefined` when it started no sign-in of that state. */
export const heldState = (sent: Readonly<Record<string, string>>, state: string | null): string | undefined => {
  const value = state === null || state === "" ? undefined : sent[nameOf(state)]
  return value === undefined ? undefined : parse(value)?.state
}

/** Expires the cookie of the sign-in that completed; the browser's other pending sign-ins keep theirs. */
export const completedStateCookie = (state: string, secure: boolean): CookieEntry =>
  entry(nameOf(state), "", secure, Duration.zero)
