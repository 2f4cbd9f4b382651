import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"

/** A switch that makes every file system call of this process hang, as a stuck disk does (see {@link stuckDisk}). */
export interface StuckDisk {
  /** From now on every `fs` call waits (synchronous: it may be called from inside the code under test). */
  readonly stick: () => void
  /** The waiting calls go ahead, and the next ones too. */
  readonly release: Effect.Effect<void>
}

/**
 * A real stuck disk for this process, as a hung disk or network mount is to Node: libuv runs every `fs` call on its
 * thread pool (`UV_THREADPOOL_SIZE` threads, 4 by default), and `stick` holds each of those threads in the open of a
 * FIFO that no process writes to, a wait in the kernel. Every later call queues behind them. `release` opens the
 * FIFO for reading and writing (which never waits, and wakes the opens). Nothing is mocked: the calls held are the
 * real ones of the code under test. Released when the scope closes, whatever the test did.
 */
export const stuckDisk = (dir: string) =>
  Effect.acquireRelease(
    Effect.sync((): StuckDisk => {
      const fifo = path.join(dir, "stuck-disk.fifo")
      execFileSync("mkfifo", [fifo])
      const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4)
      let held: ReadonlyArray<Promise<fs.promises.FileHandle>> = []
      return {
        stick: () => {
          held = Array.from({ length: threads }, () => fs.promises.open(fifo, "r"))
        },
        release: Effect.promise(async () => {
          if (held.length === 0) return
          const writer = fs.openSync(fifo, "r+")
          const handles = await Promise.all(held)
          held = []
          await Promise.all(handles.map((handle) => handle.close()))
          fs.closeSync(writer)
        })
      }
    }),
    (disk) => disk.release
  )
