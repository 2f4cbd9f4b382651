// When a certificate is renewed, and how failures back off. Pure functions of times in milliseconds, so the
// scheduler can run on any `Clock` (tests move a `TestClock`).

const day = 86_400_000

/** The first retry after a failure waits this long; each further failure doubles it. */
export const backoffBaseMs = 5 * 60_000

/** Back-off never waits longer than this between two attempts. */
export const backoffMaxMs = 6 * 3_600_000

/**
 * When a certificate valid from `notBefore` to `notAfter` is due for renewal: `renewBefore` ahead of its expiry
 * (30 days by default, as Let's Encrypt advises for its 90-day certificates), but never earlier than the last third
 * of its lifetime, so a short-lived certificate (6 days) is used for two thirds of its life, not renewed at once.
 */
export const renewAt = (notBefore: number, notAfter: number, renewBeforeMs: number): number =>
  notAfter - Math.min(renewBeforeMs, Math.max(0, notAfter - notBefore) / 3)

/** Whether a certificate is expiring soon: at `now`, it is due for renewal (see {@link renewAt}). */
export const isExpiringSoon = (notBefore: number, notAfter: number, renewBeforeMs: number, now: number): boolean =>
  now >= renewAt(notBefore, notAfter, renewBeforeMs)

/** How long to wait after the `failures`-th failure in a row (1 → 5 min, 2 → 10 min, ... at most 6 h). */
export const backoffMs = (failures: number): number =>
  failures <= 0 ? 0 : Math.min(backoffBaseMs * 2 ** Math.min(failures - 1, 30), backoffMaxMs)

/** What the scheduler knows about one ACME certificate. */
export interface RenewalInputs {
  /** The current certificate's validity, `undefined` when none was obtained yet (or it no longer fits the config). */
  readonly validity: { readonly notBefore: number; readonly notAfter: number } | undefined
  readonly failures: number
  readonly lastAttemptAt: number | undefined
}

/**
 * When the next attempt is due: when the certificate is due (at once when there is none), but after a failure not
 * before the back-off has passed, and never sooner than {@link backoffBaseMs} after the last attempt (a CA that
 * issues a certificate already due, or a clock far off, must not be asked again and again).
 */
export const nextAttemptAt = (inputs: RenewalInputs, renewBeforeMs: number): number => {
  const due =
    inputs.validity === undefined ? 0 : renewAt(inputs.validity.notBefore, inputs.validity.notAfter, renewBeforeMs)
  // Not a time (a corrupt record): as if never tried, rather than a NaN that is never due and never slept until.
  const last =
    inputs.lastAttemptAt !== undefined && Number.isFinite(inputs.lastAttemptAt) ? inputs.lastAttemptAt : undefined
  const retry = last === undefined ? 0 : last + (inputs.failures > 0 ? backoffMs(inputs.failures) : backoffBaseMs)
  return Math.max(due, retry)
}

/** Whole days from `now` to `notAfter`, rounded down (negative once expired). */
export const daysLeft = (notAfter: number, now: number): number => Math.floor((notAfter - now) / day)

/** The lifetime in days, to two decimals. */
export const lifetimeDays = (notBefore: number, notAfter: number): number =>
  Math.round(((notAfter - notBefore) / day) * 100) / 100
