import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"

const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, "../../../..")

/**
 * Every module file a fresh `node` process loads to import `specifier` (through the source export condition and
 * tsx, as the tests run): ES modules from loader hooks, CommonJS modules from the require cache. Absolute paths.
 */
export const loadedModules = (specifier: string): Effect.Effect<ReadonlyArray<string>> =>
  Effect.acquireUseRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-modules-"))),
    (dir) =>
      Effect.callback<ReadonlyArray<string>>((resume) => {
        const log = path.join(dir, "esm.log")
        fs.writeFileSync(log, "")
        execFile(
          process.execPath,
          [
            "--conditions=@gatehouse-edge/source",
            "--import",
            "tsx",
            "--import",
            path.join(here, "record-modules.mjs"),
            path.join(here, "import-module.mjs"),
            specifier
          ],
          { cwd: repoRoot, env: { ...process.env, GATEHOUSE_MODULE_LOG: log } },
          (error, stdout, stderr) => {
            if (error) return resume(Effect.die(new Error(`importing ${specifier} failed: ${stderr || error.message}`)))
            const esm = fs
              .readFileSync(log, "utf8")
              .split("\n")
              .filter((url) => url.startsWith("file:"))
              .map((url) => fileURLToPath(url))
            const cjs = JSON.parse(stdout) as Array<string>
            resume(Effect.succeed([...new Set([...esm, ...cjs])]))
          }
        )
      }),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** Packages a client must never load: server-side integrations, and undici 8 (it crashes on Node 20). */
export const forbiddenPackages = [
  "dockerode",
  "ssh2",
  "yaml",
  "better-sqlite3",
  "better-sqlite3-v12",
  "chokidar",
  "@grpc/grpc-js",
  "acme-client",
  "dns-packet",
  "undici"
] as const

// Workspace sources a client may load: its own and the contract (the domain schemas and the HTTP API).
const allowedSources = [/^packages\/client\/src\//, /^packages\/contract\/src\//]

/** The modules in `loaded` that a client must not load, with why. */
export const serverOnlyModules = (loaded: ReadonlyArray<string>): ReadonlyArray<string> =>
  loaded.flatMap((file) => {
    const relative = path.relative(repoRoot, file).split(path.sep).join("/")
    const pkg = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(relative)?.[1]
    if (pkg !== undefined && (forbiddenPackages as ReadonlyArray<string>).includes(pkg)) return [`${relative} (${pkg})`]
    if (pkg === "@effect/platform-node" && /\/NodeHttpServer\b/.test(relative)) return [`${relative} (HTTP server)`]
    if (/^packages\/[^/]+\/src\//.test(relative) && !allowedSources.some((allowed) => allowed.test(relative))) {
      return [`${relative} (workspace source outside the client's allowed entries)`]
    }
    return []
  })
