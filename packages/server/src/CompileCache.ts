import * as fs from "node:fs/promises"
import * as nodeModule from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { subcommandOf } from "./Subcommand.js"

/**
 * Turns on Node's compile cache for the `gatehouse` command (Node 22.1 and later; Node 20 has none): V8's code for
 * each module is kept on disk after the first run, so later runs skip parsing and compiling the program's
 * bundled chunks and the libraries it loads from node_modules. What it saves is measured in bench/README.md, "CLI
 * start-up".
 *
 * The cache holds code the process will run, so it lives where no other user can write:
 * `<os.tmpdir()>/gatehouse-compile-cache-<uid>`, created with mode 0700. When that path exists and is not a
 * directory of this user's that only this user can write (another user may have made it first: the name is easy to
 * guess), the command runs without a cache; Node's own default, a directory shared by every user of the machine,
 * is not used. `NODE_COMPILE_CACHE=<dir>` chooses the directory instead (Node turns the cache on there itself), and
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Node checks each entry against its module's source, so an upgrade or
 * an edit never runs stale code. Imported first by the `gatehouse` command only: a library leaves the choice to the
 * program that embeds it.
 *
 * `serve` runs without it. Node keeps every entry it read or made in memory until the process exits (it writes them
 * then; `module.flushCompileCache()` frees none): about 7 MiB of RSS for the server's modules on Node 24, for as
 * long as it runs, against ~4% of a start-up that happens once (bench/README.md, "Server memory").
 */
const { enableCompileCache } = nodeModule as { enableCompileCache?: (directory: string) => unknown }

/** This user's cache directory, made if missing; `undefined` when it cannot be trusted or made. */
const privateDirectory = async (): Promise<string | undefined> => {
  const uid = process.getuid?.()
  const directory = path.join(os.tmpdir(), `gatehouse-compile-cache-${uid ?? "user"}`)
  const made = await fs.mkdir(directory, { mode: 0o700 }).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === "EEXIST"
  )
  if (!made) return undefined
  // lstat: a symbolic link someone else planted is not a directory.
  const stat = await fs.lstat(directory).catch(() => undefined)
  if (stat === undefined || !stat.isDirectory()) return undefined
  if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) return undefined
  return directory
}

const env = process.env
const serving = subcommandOf(process.argv.slice(2)) === "serve"
if (
  enableCompileCache !== undefined &&
  !serving &&
  env.NODE_COMPILE_CACHE === undefined &&
  !env.NODE_DISABLE_COMPILE_CACHE
) {
  const directory = await privateDirectory()
  if (directory !== undefined) enableCompileCache(directory)
}
