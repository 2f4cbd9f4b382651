import * as fs from "node:fs"
import * as Result from "effect/Result"

/**
 * The path with every symbolic link on it followed, or the path as given when it does not exist (yet) or cannot
 * be read. Synchronous, like the config loading that uses it: one system call on the server's own local paths.
 */
export const realPathOr = (file: string): string =>
  Result.getOrElse(
    Result.try(() => fs.realpathSync.native(file)),
    () => file
  )
