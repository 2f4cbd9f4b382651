import type { UptimePeriod, UptimeQuery } from "@gatehouse-edge/contract/domain"
import { InvalidArgument } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { uptimePeriods } from "./UptimeBuckets.js"

/** An {@link UptimeQuery} with its defaults applied and its values checked. */
export interface CheckedUptimeQuery {
  readonly period: UptimePeriod
  readonly limit: number
  readonly offset: number
  /** Lower-cased; empty matches every alias. */
  readonly keyword: string
}

/** The defaults of `/metrics/uptime`: a day, the first 100 routes. */
export const uptimeQueryDefaults = { period: "1d", limit: 100, offset: 0 } as const

/** The most routes one page holds. */
export const maxUptimeLimit = 1000

/** The longest keyword: an alias is at most 253 characters, so a longer keyword could never match. */
export const maxKeywordLength = 253

const invalid = (field: string, message: string) =>
  new InvalidArgument({ message: `${field}: ${message}`, issues: [{ path: [field], message }] })

/**
 * Applies the defaults and checks the values, so an embedder gets the same 400-worthy answer as the HTTP API
 * (whose contract refuses the same values before they get here).
 */
export const checkUptimeQuery = (query: UptimeQuery): Effect.Effect<CheckedUptimeQuery, InvalidArgument> => {
  const period = query.period ?? uptimeQueryDefaults.period
  const limit = query.limit ?? uptimeQueryDefaults.limit
  const offset = query.offset ?? uptimeQueryDefaults.offset
  const keyword = query.keyword ?? ""
  if (!uptimePeriods.includes(period))
    return Effect.fail(invalid("period", `expected one of ${uptimePeriods.join(", ")}`))
  if (!Number.isInteger(limit) || limit < 1 || limit > maxUptimeLimit) {
    return Effect.fail(invalid("limit", `expected a whole number between 1 and ${maxUptimeLimit}`))
  }
  if (!Number.isSafeInteger(offset) || offset < 0) {
    return Effect.fail(invalid("offset", "expected a whole number ≥ 0"))
  }
  if (keyword.length > maxKeywordLength) {
    return Effect.fail(invalid("keyword", `expected at most ${maxKeywordLength} characters`))
  }
  return Effect.succeed({ period, limit, offset, keyword: keyword.toLowerCase() })
}

/**
 * Whether `alias` matches a lower-cased `keyword`: the keyword's characters appear in the alias in order, not
 * necessarily next to each other (`wb` finds `web`, `ngx` finds `nginx`), so every substring matches too. Aliases
 * are lower-case already; the comparison lower-cases anyway for aliases built by hand.
 */
export const matchesKeyword = (alias: string, keyword: string): boolean => {
  if (keyword === "") return true
  const text = alias.toLowerCase()
  let at = 0
  for (const char of keyword) {
    at = text.indexOf(char, at)
    if (at < 0) return false
    at += char.length
  }
  return true
}

/** The aliases matching the keyword, ascending, and the page of them the query asks for. */
export const selectPage = <A extends { readonly alias: string }>(
  routes: ReadonlyArray<A>,
  query: CheckedUptimeQuery
): { readonly total: number; readonly page: ReadonlyArray<A> } => {
  const matching = routes
    .filter((route) => matchesKeyword(route.alias, query.keyword))
    .sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0))
  return { total: matching.length, page: matching.slice(query.offset, query.offset + query.limit) }
}
