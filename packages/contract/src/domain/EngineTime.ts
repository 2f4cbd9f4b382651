import * as Schema from "effect/Schema"

/**
 * A point in time for a container engine's `since` / `until`: Unix seconds (with up to nine decimals), or an
 * RFC 3339 time such as the `timestamp` of a log line. The engines' API takes only the first (Docker answers 500
 * to the second); the Docker CLI converts on the client, and so does Gatehouse, keeping every decimal.
 */
export const engineTimePattern =
  /^(?:\d{1,12}(?:\.\d{1,9})?|\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2}))$/

const rfc3339Fraction = /^[^.]*T\d{2}:\d{2}:\d{2}(\.\d{1,9})/i

/** `text` as Unix seconds, as the engines take a time; `undefined` when it is neither form, or before 1970. */
export const toEngineTime = (text: string): string | undefined => {
  if (!engineTimePattern.test(text)) return undefined
  if (!text.includes("-")) return text
  // Date.parse rolls a day past the month's end over (February 30 is March 2): refuse it instead.
  const [year, month, day] = text.slice(0, 10).split("-").map(Number) as [number, number, number]
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined
  const fraction = rfc3339Fraction.exec(text)?.[1] ?? ""
  // Date.parse keeps milliseconds only: read the whole seconds, then put the written decimals back.
  const wholeMs = Date.parse(text.replace(fraction, ""))
  if (Number.isNaN(wholeMs) || wholeMs < 0) return undefined
  return `${wholeMs / 1000}${fraction}`
}

/**
 * A query's `since` / `until` for container logs, as the API checks it: either form. (A date that does not exist,
 * such as February 30, passes the pattern; the Docker service refuses it with the same 400.)
 */
export const EngineTime = Schema.String.check(
  Schema.isMaxLength(64),
  Schema.isPattern(engineTimePattern, { message: "expected Unix seconds or an RFC 3339 time" })
).annotate({ description: "Unix seconds (e.g. 1764130762.5) or an RFC 3339 time (e.g. 2026-11-26T04:19:22Z)" })
