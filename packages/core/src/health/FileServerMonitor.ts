import * as fs from "node:fs"
import type { Healthcheck, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { type CheckResult, down, measure, misconfigured, type ProbeOutcome, up } from "./CheckResult.js"

/** `fs.stat`'s callback form: the only file system call the monitor makes. */
export type Stat = (path: string, callback: (err: NodeJS.ErrnoException | null, stats: fs.Stats) => void) => void

/**
 * One monitor's `stat(root)`, at most one at a time. A stat cannot be cancelled: the check's timeout only stops
 * waiting, the stat keeps a thread of libuv's pool (4 by default) until the file system answers. On a hung NFS or
 * FUSE root, a stat per interval would take the whole pool within a few intervals, and with it every DNS lookup,
 * file read and crypto call of the server. So a check that finds a stat still pending waits for that one (its
 * answer is as fresh as any) under its own timeout instead of starting another.
 */
const singleStat = (stat: Stat, root: string): Effect.Effect<ProbeOutcome> => {
  let pending: Promise<ProbeOutcome> | undefined
  const start = (): Promise<ProbeOutcome> => {
    if (pending !== undefined) return pending
    const started = new Promise<ProbeOutcome>((resolve) =>
      stat(root, (err, stats) =>
        resolve(err ? down(err.message) : stats.isDirectory() ? up : down(`${root} is not a directory`))
      )
    )
    pending = started
    // Also on a rejection (a `stat` that throws, e.g. on a root with a NUL byte): the next check tries again.
    const settle = () => {
      if (pending === started) pending = undefined
    }
    started.then(settle, settle)
    return started
  }
  return Effect.promise(start)
}

/** `checkFileServer` over the given `stat`. */
export const makeCheckFileServer =
  (stat: Stat) =>
  (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> =>
    measure(
      route.root === undefined
        ? Effect.succeed(misconfigured("file server route has no root"))
        : singleStat(stat, route.root),
      hc.timeout_ms
    )

/** `stat(root)` must be an existing directory, for `fileserver` routes. Each call is one monitor's check. */
export const checkFileServer = makeCheckFileServer(fs.stat)
