import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import { InvalidArgument, unsafeArgumentReason } from "@gatehouse-edge/contract/domain"

/** Initial lines when a request names none. */
export const defaultLineLimit = 100

/** Files (or services) one request may name: each is a follow the node runs and the server replays. */
export const maxWordsPerParameter = 16

// Not files to follow: devices never end a line (`/dev/zero` grows `tail`'s buffer until the node runs out of
// memory), and /proc and /sys are the kernel's. A path resolves through `//` and `/./` segments to the same place.
const pseudoFileSystems = new Set(["dev", "proc", "sys"])
const inPseudoFileSystem = (file: string) =>
  pseudoFileSystems.has(file.split("/").find((s) => s !== "" && s !== ".") ?? "")

/**
 * Every problem with the words a caller passes to a remote command (SPEC §5.4), each naming its parameter
 * (`service[1]`, `file[0]`), or `undefined` when all are safe. `files` must also be absolute paths.
 */
export const commandInputProblems = (input: {
  readonly services?: ReadonlyArray<string> | undefined
  readonly files?: ReadonlyArray<string> | undefined
  readonly limit?: number | undefined
}): InvalidArgument | undefined => {
  const issues: Array<ValidationIssue> = []
  const check = (parameter: string, values: ReadonlyArray<string>, absolute: boolean) => {
    if (values.length > maxWordsPerParameter) {
      issues.push({ path: [parameter], message: `${parameter} may be given at most ${maxWordsPerParameter} times` })
      return
    }
    values.forEach((value, index) => {
      const reason =
        unsafeArgumentReason(value) ??
        (!absolute
          ? undefined
          : !value.startsWith("/")
            ? "must be an absolute path"
            : inPseudoFileSystem(value)
              ? "must not be under /dev, /proc or /sys"
              : undefined)
      if (reason !== undefined) issues.push({ path: [parameter, index], message: `${parameter} ${reason}` })
    })
  }
  check("service", input.services ?? [], false)
  check("file", input.files ?? [], true)
  const limit = input.limit
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) {
    issues.push({ path: ["limit"], message: "limit must be a whole number from 1 to 1000" })
  }
  if (issues.length === 0) return undefined
  const first = issues[0]!
  return new InvalidArgument({
    message:
      issues.length === 1
        ? `invalid ${first.path[0]}: ${first.message}`
        : `${issues.length} invalid arguments: ${issues.map((i) => i.message).join("; ")}`,
    issues
  })
}

/** Runs `argv` inside container `vmid` through Proxmox's `pct exec`; 0 (or none) runs it on the node itself. */
export const inGuest = (vmid: number | undefined, argv: ReadonlyArray<string>): ReadonlyArray<string> =>
  vmid === undefined || vmid === 0 ? argv : ["pct", "exec", String(vmid), "--", ...argv]

/** `journalctl -f -n <limit> --no-pager [-u <unit>]...`: the last lines, then new ones. */
export const journalArgv = (services: ReadonlyArray<string>, limit: number): ReadonlyArray<string> => [
  "journalctl",
  "-f",
  "-n",
  String(limit),
  "--no-pager",
  ...services.flatMap((service) => ["-u", service])
]

/** `tail -n <limit> -F <file>...`: follows each file by name, so a rotated log keeps streaming. */
export const tailArgv = (files: ReadonlyArray<string>, limit: number): ReadonlyArray<string> => [
  "tail",
  "-n",
  String(limit),
  "-F",
  ...files
]

/** Where a container without journald logs (SPEC §5.3 fallback). */
export const fallbackLogFile = "/var/log/messages"

/** Exits 0 when the container runs journald (its runtime directory exists). */
export const hasJournaldArgv: ReadonlyArray<string> = ["test", "-d", "/run/systemd/journal"]
