import * as fs from "node:fs/promises"
import * as path from "node:path"
import { UnsafePath } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { isRouteFileName } from "../routes/RouteFiles.js"
import { FileSystemFailure } from "./FileSystemFailure.js"

// Control characters (a newline, an escape sequence) and invisible format characters (a right-to-left override
// that shows `lmy.yml` as another name) have no place in a name an operator reads and types.
const INVISIBLE = /[\p{Cc}\p{Cf}]/u

/**
 * Why `filename` is not safe as one plain path component, or `undefined` when it is: no directory part, no
 * traversal, no absolute path, no percent-encoding (the HTTP layer decoded the query once, so `%2e%2e` arriving
 * here is a double encoding), no control or invisible characters, at most 255 bytes (the file systems' limit).
 */
export const pathComponentProblem = (filename: string): string | undefined => {
  if (filename.includes("\0")) return "contains a NUL byte"
  if (path.isAbsolute(filename) || /^[A-Za-z]:/.test(filename)) return "absolute paths are not allowed"
  if (filename.split(/[\\/]/).includes("..")) return "'..' path segments are not allowed"
  if (/[\\/]/.test(filename)) return "directories are not allowed: give a file name"
  if (filename.includes("%")) return "encoded characters are not allowed"
  if (INVISIBLE.test(filename)) return "control or invisible characters are not allowed"
  if (Buffer.byteLength(filename) > 255) return "longer than 255 bytes"
  return undefined
}

/**
 * Why the API cannot address `filename` as a route file, or `undefined` when it can. Every name the route loader
 * loads (`isRouteFileName`: `*.yml` / `*.yaml` in any case, not hidden) that is a safe path component is
 * accepted, spaces and all, so the files the server serves are the files the API lists, reads and writes.
 */
export const routeFileNameProblem = (filename: string): string | undefined =>
  pathComponentProblem(filename) ??
  (isRouteFileName(filename) ? undefined : "expected a route file name: *.yml or *.yaml, not starting with '.'")

const refuse = (problem: string) => Effect.fail(new UnsafePath({ parameter: "filename", problem }))

/** Checks a client-supplied route file name (see {@link routeFileNameProblem}) before it gets near the file system. */
export const checkFileName = (filename: string): Effect.Effect<string, UnsafePath> => {
  const problem = routeFileNameProblem(filename)
  return problem === undefined ? Effect.succeed(filename) : refuse(problem)
}

/** Checks a client-supplied name that must be a plain path component (see {@link pathComponentProblem}). */
export const checkPathComponent = (filename: string): Effect.Effect<string, UnsafePath> => {
  const problem = pathComponentProblem(filename)
  return problem === undefined ? Effect.succeed(filename) : refuse(problem)
}

/** Whether `file` (a real path) lies inside the directory whose real path is `root`, and is not `root` itself. */
export const liesInside = (root: string, file: string): boolean => {
  const relative = path.relative(root, file)
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)
}

const outside = () => new UnsafePath({ parameter: "filename", problem: "resolves outside its directory" })

/** `file`'s real path (its links followed), or the path as given when it cannot be resolved (it does not exist). */
export const realOf = (file: string) =>
  Effect.tryPromise(() => fs.realpath(file)).pipe(Effect.orElseSucceed(() => path.resolve(file)))

/** Whether two stats (or identities) are of the same file. */
export const sameFile = (a: FileIdentity, b: FileIdentity): boolean => a.dev === b.dev && a.ino === b.ino

// `filename` in `dir`'s real path, and the real path it leads to (itself when it does not exist), proven inside.
// The directory itself may have gone, or become unreadable, since it was checked: that is the file system's answer.
const resolvedInside = (dir: string, filename: string) =>
  Effect.gen(function* () {
    const root = yield* Effect.tryPromise({ try: () => fs.realpath(dir), catch: FileSystemFailure.of })
    const target = path.join(root, filename)
    const real = yield* Effect.tryPromise(() => fs.realpath(target)).pipe(Effect.catch(() => Effect.succeed(target)))
    if (!liesInside(root, real)) return yield* outside()
    return { root, target, real }
  })

/**
 * Resolves `filename` inside `dir` and proves the result stays there after following symlinks, so a link that
 * points elsewhere is refused rather than read or overwritten. A missing file resolves to its would-be path.
 */
export const resolveInside = (dir: string, filename: string): Effect.Effect<string, UnsafePath | FileSystemFailure> =>
  Effect.map(resolvedInside(dir, filename), (resolved) => resolved.target)

/** A route file as its checks found it: the path to open, and what the file opened by it must be. */
export interface CheckedRouteFile {
  /** The path to open: the name in the routes directory's real path (a link there is still followed). */
  readonly target: string
  /** The routes directory's real path: the file opened must lie inside it. */
  readonly root: string
  /** The real path `target` led to when checked (`target` itself when it did not exist). */
  readonly real: string
  /** The device and inode of the file at `real` when checked; `undefined` when there was none. */
  readonly identity: FileIdentity | undefined
}

/** A file as the file system knows it, whatever its names. */
export interface FileIdentity {
  readonly dev: number
  readonly ino: number
}

/**
 * `resolveInside` for a route file, refusing the config file itself: a config that is a symlink into the routes
 * directory (or a routes directory that is a symlink to the config's) passes the config's own check by its path,
 * and `files:read` would then serve the config, secrets and all, as a route file. What it found is kept for the
 * check of the file opened afterwards (see OpenedRouteFile): a link may change between the two.
 */
export const checkRouteFilePath = (
  routesDir: string,
  filename: string,
  configFile: string | undefined
): Effect.Effect<CheckedRouteFile, UnsafePath | FileSystemFailure> =>
  Effect.gen(function* () {
    const { root, target, real } = yield* resolvedInside(routesDir, filename)
    if (configFile !== undefined && real === (yield* realOf(configFile))) {
      return yield* new UnsafePath({ parameter: "filename", problem: "is the server's config file (through a link)" })
    }
    // `real` has no link in it, so the file is taken as it is (lstat): a link swapped in since the realpath is a link
    // now, and has no identity a file opened through it could match. `stat` would follow it to its target.
    const identity = yield* Effect.tryPromise(() => fs.lstat(real)).pipe(
      Effect.map((stats): FileIdentity | undefined =>
        stats.isSymbolicLink() ? undefined : { dev: stats.dev, ino: stats.ino }
      ),
      Effect.orElseSucceed(() => undefined)
    )
    return { target, root, real, identity }
  })

/** {@link checkRouteFilePath}'s path to the file. */
export const resolveRouteFile = (
  routesDir: string,
  filename: string,
  configFile: string | undefined
): Effect.Effect<string, UnsafePath | FileSystemFailure> =>
  Effect.map(checkRouteFilePath(routesDir, filename, configFile), (checked) => checked.target)
