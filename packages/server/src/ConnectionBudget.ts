import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"

/**
 * The process's soft limit of open files (`Max open files` in `/proc/self/limits`), or `undefined` where it cannot
 * be read (not Linux) or is unlimited. Node raises the soft limit to the hard one as it starts, so this is what
 * the server really has.
 */
export const openFilesLimit: Effect.Effect<number | undefined> = Effect.promise(() =>
  fs.readFile("/proc/self/limits", "utf8").then(
    (text) => {
      const soft = /^Max open files\s+(\d+)\s/m.exec(text)?.[1]
      return soft === undefined ? undefined : Number(soft)
    },
    () => undefined
  )
)

/** Descriptors kept out of the listeners' share: the store, route and config watchers, logs, outgoing connections. */
const RESERVED_FILES = 512

/** The total of one listener where the open-file limit is not known. */
const UNKNOWN_LIMIT_CONNECTIONS = 8192

/**
 * The connection cap of each of the two listeners (HTTP, gRPC) when the config sets none: half of 80 % of the
 * open-file limit less a reserve, so both full still leave the process descriptors for its files, watchers and
 * store (connections past the limit would otherwise fail with EMFILE everything else the server opens).
 */
export const listenerConnections = (openFiles: number | undefined): number =>
  openFiles === undefined
    ? UNKNOWN_LIMIT_CONNECTIONS
    : Math.max(64, Math.floor((Math.floor(openFiles * 0.8) - RESERVED_FILES) / 2))
