import * as fs from "node:fs/promises"
import * as path from "node:path"
import { UnsafePath } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"

// A plain file name: no directory part, no hidden files, no traversal, no encodings.
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}\.ya?ml$/

/**
 * Checks a client-supplied file name before it gets near the file system. Only plain `*.yml`/`*.yaml` names are
 * accepted: `..`, separators, absolute paths and percent-encoded variants (already decoded once by the HTTP layer,
 * so `%2e%2e` arriving here is a double encoding) are refused with the reason.
 */
export const checkFileName = (filename: string): Effect.Effect<string, UnsafePath> => {
  const refuse = (problem: string) => Effect.fail(new UnsafePath({ parameter: "filename", problem }))
  if (filename.includes("\0")) return refuse("contains a NUL byte")
  if (path.isAbsolute(filename) || /^[A-Za-z]:/.test(filename)) return refuse("absolute paths are not allowed")
  if (filename.split(/[\\/]/).includes("..")) return refuse("'..' path segments are not allowed")
  if (/[\\/]/.test(filename)) return refuse("directories are not allowed: give a file name")
  if (filename.includes("%")) return refuse("encoded characters are not allowed")
  if (!FILE_NAME.test(filename)) return refuse("expected a file name like routes.yml (letters, digits, . _ -)")
  return Effect.succeed(filename)
}

/**
 * Resolves `filename` inside `dir` and proves the result stays there after following symlinks, so a link that
 * points elsewhere is refused rather than read or overwritten. A missing file resolves to its would-be path.
 */
export const resolveInside = (dir: string, filename: string): Effect.Effect<string, UnsafePath> =>
  Effect.gen(function* () {
    const root = yield* Effect.orDie(Effect.tryPromise(() => fs.realpath(dir)))
    const target = path.join(root, filename)
    const real = yield* Effect.tryPromise(() => fs.realpath(target)).pipe(Effect.catch(() => Effect.succeed(target)))
    const relative = path.relative(root, real)
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) {
      return yield* new UnsafePath({ parameter: "filename", problem: "resolves outside its directory" })
    }
    return target
  })
