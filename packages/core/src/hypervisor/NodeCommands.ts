import { posix } from "node:path"
import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import { InvalidArgument, unsafeArgumentReason } from "@gatehouse-edge/contract/domain"
import { ConfigDefaults } from "../config/GatehouseConfig.js"

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
 * A path as the node resolves it, spelled one way: `//`, `/./` and a trailing `/` removed (`..` segments never get
 * this far: {@link commandInputProblems} refuses them). `/x`, `/./x` and `//x` are one file.
 */
export const normalizeFile = (file: string): string => {
  const normal = posix.normalize(file)
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal
}

// Whether the normalised `file` lies below the directory `dir` (itself normalised); `/var/logx` is not under
// `/var/log`, and a directory is not under itself (`tail` cannot follow it anyway).
const isUnder = (file: string, dir: string) => (dir === "/" ? file !== "/" : file.startsWith(`${dir}/`))

const outsideReason = (dirs: ReadonlyArray<string>) =>
  dirs.length === 0
    ? "cannot be followed: hypervisor.tail_paths allows no directory"
    : `must be under ${dirs.length === 1 ? dirs[0] : `one of ${dirs.join(", ")}`} ` +
      "(the directories hypervisor.tail_paths allows)"

/**
 * Every problem with the words a caller passes to a remote command (SPEC §5.4), each naming its parameter
 * (`service[1]`, `file[0]`), or `undefined` when all are safe. `files` must also be absolute paths under one of
 * `tailPaths` (`hypervisor.tail_paths`, default `/var/log`) once normalised: `tail` runs as the SSH user (root on
 * Proxmox VE), and a reader of logs must not be a reader of `/etc/shadow` or `/etc/pve/priv/authkey.key`.
 */
export const commandInputProblems = (input: {
  readonly services?: ReadonlyArray<string> | undefined
  readonly files?: ReadonlyArray<string> | undefined
  readonly limit?: number | undefined
  readonly tailPaths?: ReadonlyArray<string> | undefined
}): InvalidArgument | undefined => {
  const issues: Array<ValidationIssue> = []
  const tailPaths = (input.tailPaths ?? ConfigDefaults.tailPaths).map(normalizeFile)
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
              : !tailPaths.some((dir) => isUnder(normalizeFile(value), dir))
                ? outsideReason(tailPaths)
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
