/**
 * Rows as aligned text: each column padded to its widest cell (right-aligned where `numeric` says so), two spaces
 * between columns, the last column not padded (no trailing spaces).
 */
export const formatTable = (
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  numeric: ReadonlyArray<boolean> = []
): ReadonlyArray<string> => {
  const all = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i]?.length ?? 0)))
  return all.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : numeric[i] === true ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)
      )
      .join("  ")
  )
}

/** A time span in whole seconds, short and readable: `42s`, `3m07s`, `5h02m`, `2d04h`. */
export const formatSeconds = (total: number): string => {
  const s = Math.max(0, Math.floor(total))
  const two = (n: number) => String(n).padStart(2, "0")
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`
  if (s < 86_400) return `${Math.floor(s / 3600)}h${two(Math.floor(s / 60) % 60)}m`
  return `${Math.floor(s / 86_400)}d${two(Math.floor(s / 3600) % 24)}h`
}

/** A latency as the uptime table shows it: `-` before any measurement. */
export const formatLatency = (ms: number): string => (ms === 0 ? "-" : `${ms.toFixed(2)} ms`)

/** `n thing` or `n things`. */
export const plural = (n: number, thing: string): string => `${n} ${thing}${n === 1 ? "" : "s"}`
