import * as fs from "node:fs"
import type { Healthcheck, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { type CheckResult, down, measure, misconfigured, type ProbeOutcome, up } from "./CheckResult.js"

/** `fs.stat`'s callback form: the only file system call the monitor makes. */
export type Stat = (path: string, callback: (err: NodeJS.ErrnoException | null, stats: fs.Stats) => void) => void

/**
 * `stat(root)`, at most one at a time per root. A stat cannot be cancelled: a check's timeout only stops waiting,
 * the stat keeps a thread of libuv's pool (4 by default) until the file system answers. On a hung NFS or FUSE root,
 * a stat per interval would take the whole pool within a few intervals, and with it every DNS lookup, file read and
 * crypto call of the server. So a check that finds a stat of its root still pending (its own earlier one, another
 * route's with the same root, the monitor an edit replaced) waits for that one under its own timeout (its answer is
 * as fresh as any) instead of starting another.
 */
const singleStats = (stat: Stat) => {
  const pending = new Map<string, Promise<ProbeOutcome>>()
  return (root: string): Effect.Effect<ProbeOutcome> =>
    Effect.promise(() => {
      const inFlight = pending.get(root)
      if (inFlight !== undefined) return inFlight
      const started = new Promise<ProbeOutcome>((resolve) =>
        stat(root, (err, stats) =>
          resolve(err ? down(err.message) : stats.isDirectory() ? up : down(`${root} is not a directory`))
        )
      )
      pending.set(root, started)
      // Also on a rejection (a `stat` that throws, e.g. on a root with a NUL byte): the next check tries again.
      const settle = () => {
        if (pending.get(root) === started) pending.delete(root)
      }
      started.then(settle, settle)
      return started
    })
}

/** `checkFileServer` over the given `stat`. */
export const makeCheckFileServer = (stat: Stat) => {
  const statOf = singleStats(stat)
  return (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> =>
    measure(
      route.root === undefined ? Effect.succeed(misconfigured("file server route has no root")) : statOf(route.root),
      hc.timeout_ms
    )
}

/** `stat(root)` must be an existing directory, for `fileserver` routes; one stat at a time per root, server-wide. */
export const checkFileServer = makeCheckFileServer(fs.stat)
