import { spawn } from "node:child_process"
import { Effect } from "effect"
import { gatehouseCommand, runCli } from "../../../../test/support/Cli.js"
import { type WatchedProcess, watchProcess } from "../../../../test/support/WatchedProcess.js"

/** Where a CLI run finds the server: its origin, its directory (the CLI's working directory) and its admin key. */
export interface CliTarget {
  readonly origin: string
  readonly dir: string
  readonly apiKey: string
}

/** `gatehouse <args> --server <origin>` to completion, with the admin key in `GATEHOUSE_API_KEY`. */
export const cliAgainst =
  (server: CliTarget) =>
  (args: ReadonlyArray<string>, options: { readonly input?: string } = {}) =>
    runCli([...args, "--server", server.origin], {
      cwd: server.dir,
      env: { GATEHOUSE_API_KEY: server.apiKey },
      ...options
    })

/**
 * `gatehouse <args> --server <origin>` left running (a follow), its output watched as it comes; killed at the end
 * of the test if still running.
 */
export const followAgainst = (server: CliTarget, args: ReadonlyArray<string>) => {
  // The caller's GATEHOUSE_* settings dropped: only the arguments and the key say where to connect.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GATEHOUSE_")))
  return watchProcess(() =>
    spawn(process.execPath, gatehouseCommand([...args, "--server", server.origin]), {
      cwd: server.dir,
      env: { ...env, NODE_OPTIONS: "", GATEHOUSE_API_KEY: server.apiKey }
    })
  )
}

/** The non-empty lines of a follow's output, each parsed as JSON. */
export const jsonLines = (text: string): ReadonlyArray<unknown> =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as unknown)

/** Ends a follow as Ctrl-C does and answers its exit status and output. */
export const ctrlC = (follow: WatchedProcess) => Effect.andThen(follow.signal("SIGINT"), follow.exit)
