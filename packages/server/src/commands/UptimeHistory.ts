import type { HealthStatusString, RouteUptimeAggregate, StatusSample, UptimePeriod } from "@gatehouse-edge/core/domain"

// One character per point of the history column, readable on any terminal.
const symbols: Readonly<Record<HealthStatusString, string>> = {
  healthy: "#",
  unhealthy: "x",
  error: "E",
  napping: "z",
  starting: "s",
  unknown: "."
}

/** The legend of the history column. */
export const historyLegend = "# up  x down  E error  z idle  s starting  . unknown"

/** How many points of history fit a terminal line next to the other columns. */
export const historySlots = 40

/**
 * The width of one point of each period: a period is 100 buckets. Core's `bucketWidthMs` says the same, but a
 * client command does not load core (a test keeps the two equal).
 */
export const pointWidthMs: Readonly<Record<UptimePeriod, number>> = {
  "5m": 3_000,
  "15m": 9_000,
  "1h": 36_000,
  "1d": 864_000,
  "1mo": 25_920_000
}

const startOf = (point: StatusSample): number => Date.parse(point.timestamp)

/**
 * Where the history of every row of a page ends: the start of its newest point, so that the rows' columns are the
 * same periods of time. `undefined` when the page has no point at all.
 */
export const historyEndOf = (rows: ReadonlyArray<RouteUptimeAggregate>): number | undefined => {
  let end: number | undefined
  for (const row of rows) {
    for (const point of row.statuses) {
      const start = startOf(point)
      if (Number.isFinite(start) && (end === undefined || start > end)) end = start
    }
  }
  return end
}

/**
 * The last {@link historySlots} points of `width` ending at `end`, one character each, oldest first. The server
 * sends only the points that hold samples, so a time nothing was sampled (the server was down) has no point: its
 * slot shows `.` (unknown) instead of the next point being drawn there.
 */
export const historyLine = (statuses: ReadonlyArray<StatusSample>, width: number, end: number): string => {
  const line: Array<string> = Array.from({ length: historySlots }, () => symbols.unknown)
  const first = end - (historySlots - 1) * width
  for (const point of statuses) {
    const slot = Math.round((startOf(point) - first) / width)
    if (slot >= 0 && slot < historySlots) line[slot] = symbols[point.status]
  }
  return line.join("")
}
