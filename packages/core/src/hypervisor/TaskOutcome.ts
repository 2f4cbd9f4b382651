// How a finished Proxmox task is read: whether it succeeded, with how many warnings, and what kind of task it was.

/**
 * The warnings of a task that succeeded, or `undefined` when it failed. Proxmox counts a task as failed unless its exit
 * status is `OK` or `WARNINGS: <n>` (pve-common's `upid_status_is_error`): a task with warnings did its work and
 * logged `n` lines at warning level (a start whose container printed a deprecation notice, say).
 */
export const taskWarnings = (exitstatus: string | undefined): number | undefined => {
  if (exitstatus === "OK") return 0
  const warned = /^WARNINGS: (\d+)$/.exec(exitstatus ?? "")
  return warned?.[1] === undefined ? undefined : Number(warned[1])
}

/** What a success message says of the warnings its task logged (`2 warnings`), `undefined` for none. */
export const warningsNote = (warnings: number): string | undefined =>
  warnings === 0 ? undefined : `${warnings} warning${warnings === 1 ? "" : "s"}`

/**
 * Whether a task only handed the action to the HA manager (`hastart`, `hastop`: the UPID's type field), which acts on
 * the container a while after the task ended.
 */
export const isHaTask = (upid: string): boolean => {
  const type = upid.split(":")[5]
  return type === "hastart" || type === "hastop"
}
