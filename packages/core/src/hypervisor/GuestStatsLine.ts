import type { Guest } from "@gatehouse-edge/contract/domain"

const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] as const

const oneDecimal = (value: number): string => {
  const text = value.toFixed(1)
  return text.endsWith(".0") ? text.slice(0, -2) : text
}

/**
 * Bytes in binary units (SPEC §5.2): below 1024 as `<n>B`; else divided by 1024 up to PiB with one decimal and a
 * trailing `.0` dropped (1024 → `1KiB`, 1536 → `1.5KiB`). A value that rounds up to 1024 of a unit is written in
 * the next one (`1MiB`, not `1024KiB`).
 */
export const formatBinarySize = (bytes: number): string => {
  const whole = Math.max(0, Math.round(bytes))
  if (whole < 1024) return `${whole}B`
  let value = whole
  let unit = 0
  while (unit < units.length - 1 && value >= 1024) {
    value /= 1024
    unit++
  }
  // 1048575 B is 1023.999 KiB, which one decimal would print as "1024KiB".
  if (unit < units.length - 1 && Number(value.toFixed(1)) >= 1024) {
    value /= 1024
    unit++
  }
  return `${oneDecimal(value)}${units[unit]}`
}

/** `<part>%` with `digits` decimals. */
const percent = (value: number, digits: number): string => `${value.toFixed(digits)}%`

/**
 * A guest's stats line `STATUS|CPU%|MEM USAGE/LIMIT|MEM%|NET I/O|BLOCK I/O` (SPEC §5.2), e.g.
 * `running|31.1%|9.6GiB/20GiB|48.87%|4.7GiB/3.3GiB|25GiB/36GiB`: CPU% one decimal, MEM% two (`0.00%` without a
 * limit), NET I/O received/sent, BLOCK I/O read/written.
 */
export const guestStatsLine = (guest: Guest): string =>
  [
    guest.status,
    percent(guest.cpu_usage_pct, 1),
    `${formatBinarySize(guest.mem_used)}/${formatBinarySize(guest.mem_total)}`,
    percent(guest.mem_total > 0 ? (guest.mem_used / guest.mem_total) * 100 : 0, 2),
    `${formatBinarySize(guest.net_in)}/${formatBinarySize(guest.net_out)}`,
    `${formatBinarySize(guest.disk_read)}/${formatBinarySize(guest.disk_write)}`
  ].join("|")
