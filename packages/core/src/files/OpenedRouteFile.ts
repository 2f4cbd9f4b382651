import type { Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { UnsafePath } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { type CheckedRouteFile, liesInside, sameFile } from "./SafePaths.js"

// Where Linux names the file behind each of the process's open descriptors.
const LINUX_FD_DIR = "/proc/self/fd"

const refuse = (problem: string) => Effect.fail(new UnsafePath({ parameter: "filename", problem }))

// The path of the file open as `handle`, as the kernel knows it now, or `undefined` where nothing tells it (no
// /proc). A file removed since keeps its path with " (deleted)" added: still in the directory it was in.
const pathOfOpen = (handle: fs.FileHandle, fdDir: string) =>
  Effect.tryPromise(() => fs.readlink(path.join(fdDir, String(handle.fd)))).pipe(Effect.orElseSucceed(() => undefined))

/**
 * Proves that the file a read opened is the route file its check found ({@link CheckedRouteFile}): a file inside the
 * routes directory, and not the config file. The open follows links again, and between the check and the open
 * someone who may write in the routes directory (but not read the config) could have swapped the file, or a
 * directory its link leads through, for a link to the config or to any file the server may read.
 *
 * Where the open descriptor names its file (Linux: `/proc/self/fd/<fd>`), that name must lie inside the routes
 * directory's real path: exact, whatever changed before the open (a file cannot be moved into the routes directory
 * by one who may not write where it was). Elsewhere the file opened must be the one (device and inode) that the
 * checked real path named just after the check; a file replaced in that time (an atomic write) is refused too, to be
 * read again. Either way a file that is the config's inode is refused, so a hard link to it is known as well.
 * `fdDir` is for tests (a directory that does not exist takes the path taken without /proc).
 */
export const checkOpenedRouteFile = (
  checked: CheckedRouteFile,
  configFile: string | undefined,
  fdDir: string = LINUX_FD_DIR
) =>
  Effect.fnUntraced(function* (handle: fs.FileHandle, opened: Stats) {
    const openedPath = yield* pathOfOpen(handle, fdDir)
    if (openedPath !== undefined) {
      if (!liesInside(checked.root, openedPath)) return yield* refuse("resolves outside its directory")
    } else if (checked.identity === undefined || !sameFile(opened, checked.identity)) {
      return yield* refuse("changed between its check and its read (a link replaced?): read it again")
    }
    if (configFile === undefined) return
    const config = yield* Effect.tryPromise(() => fs.stat(configFile)).pipe(Effect.orElseSucceed(() => undefined))
    if (config !== undefined && sameFile(opened, config)) {
      return yield* refuse("is the server's config file (through a link)")
    }
  })
