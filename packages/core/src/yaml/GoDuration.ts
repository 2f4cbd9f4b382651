import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"

const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000
}

// µs and μs (the micro sign and the Greek mu) as escapes: the bundle keeps regular expressions as written, and one
// non-ASCII character makes V8 hold the whole bundle's source as two-byte text (twice the memory).
const wholeDuration = /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/
const durationPart = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g

/**
 * Parses a Go-style duration (`300ms`, `5s`, `1m30s`, `1.5h`; units ns, us, ms, s, m, h; `0` alone) into
 * milliseconds, or `undefined` when it is not one. Negative durations are not accepted. A positive duration
 * under a millisecond becomes 1 ms rather than 0, which would usually mean "disabled".
 */
export const parseGoDuration = (text: string): number | undefined => {
  const trimmed = text.trim()
  if (trimmed === "0") return 0
  if (!wholeDuration.test(trimmed)) return undefined
  let total = 0
  for (const [, amount, unit] of trimmed.matchAll(durationPart)) total += Number(amount) * unitMs[unit!]!
  const ms = Math.round(total)
  return ms === 0 && total > 0 ? 1 : ms
}

/** Formats milliseconds as a Go-style duration (`1m30s`, `500ms`, `0s`), the inverse of {@link parseGoDuration}. */
export const formatGoDuration = (ms: number): string => {
  if (ms === 0) return "0s"
  const parts: Array<string> = []
  let rest = ms
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000]
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`)
      rest %= size
    }
  }
  if (rest > 0) parts.push(`${rest}ms`)
  return parts.join("")
}

const invalidDuration = (input: string) =>
  `\`${input}\` is not a duration: write a number with a unit (ns, us, ms, s, m, h) such as 5s, 1m30s or 500ms, or an integer number of seconds`

const toMilliseconds = SchemaTransformation.transformEffect<number, string | number>({
  decode: (input, options) => {
    const ms = typeof input === "number" ? (input >= 0 ? input * 1_000 : undefined) : parseGoDuration(input)
    if (ms !== undefined) return Effect.succeed(ms)
    const message = typeof input === "number" ? "a duration must not be negative" : invalidDuration(input)
    return Effect.fail(new SchemaIssue.InvalidValue({ message }, input, options))
  },
  encode: (ms) => Effect.succeed(formatGoDuration(ms))
})

/**
 * A duration in a config file — a Go-style string (`5s`, `1m30s`) or an integer number of seconds — decoded to
 * integer milliseconds. `minimum` (milliseconds) rejects shorter durations with a message in the same units.
 */
export const GoDuration = (options: { readonly minimum?: number } = {}) => {
  const minimum = options.minimum ?? 0
  const target =
    minimum > 0
      ? Schema.Int.check(
          Schema.makeFilter((ms: number) =>
            ms >= minimum ? undefined : `must be at least ${formatGoDuration(minimum)}, got ${formatGoDuration(ms)}`
          )
        )
      : Schema.Int
  return Schema.Union([Schema.String, Schema.Int])
    .annotate({ expected: "a duration such as 5s or 1m30s, or an integer number of seconds" })
    .pipe(Schema.decodeTo(target, toMilliseconds))
}
