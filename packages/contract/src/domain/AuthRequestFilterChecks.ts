import { type AuthRequestFilter, authRequestPageSize } from "./AuthRequest.js"

// RFC 3339 with a zone (`Z` or an offset): `Date.parse` alone also takes local times (read in the reader's zone)
// and loose forms (`1` is 2001-01-01).
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/

/** What an instant of a filter must be, as a refusal says it. */
export const instantRequirement = "must be an RFC 3339 time with a zone, such as 2026-01-02T03:04:05Z"

/** What a page size must be, as a refusal says it. */
export const pageSizeRequirement = `must be a whole number from 1 to ${authRequestPageSize.max}`

/** The milliseconds since the epoch of an RFC 3339 time with a zone; undefined for anything else. */
export const instantMillisOf = (value: string): number | undefined => {
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN
  return Number.isNaN(ms) ? undefined : ms
}

/** Whether a page size is accepted: a whole number from 1 to {@link authRequestPageSize}.max. */
export const isPageSize = (limit: number): boolean =>
  Number.isInteger(limit) && limit >= 1 && limit <= authRequestPageSize.max

/**
 * The first field of a list filter the server would refuse for its form alone (the page size, the instant), with
 * why, or undefined: a client checks these before sending, as every transport's server does on receipt.
 */
export const listFilterFormProblem = (
  filter: AuthRequestFilter
): { readonly field: "limit" | "decided_after"; readonly problem: string } | undefined => {
  if (filter.limit !== undefined && !isPageSize(filter.limit)) return { field: "limit", problem: pageSizeRequirement }
  if (filter.decided_after !== undefined && instantMillisOf(filter.decided_after) === undefined) {
    return { field: "decided_after", problem: instantRequirement }
  }
  return undefined
}
