// The `gatehouse` command: the CLI run on the process arguments (bin.ts starts it, see there why it is apart).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import { gatehouseCli } from "./Cli.js"
import { endsOnCtrlC } from "./commands/Following.js"
import { subcommandOf } from "./Subcommand.js"
import { versionInfo } from "./Version.js"

// SIGTERM/SIGINT interrupt the program. A server that then shut down cleanly exits 0, as supervisors expect, and
// so does a command following a stream (a journal, logs -f, --watch: Ctrl-C is how it ends); any other command
// stopped that way did not finish, and exits 130 like other command-line tools (a script that reads
// `KEY=$(gatehouse apikey create ...)` must not take an interrupted run for a success).
// A command line the parser refuses (an unknown flag, a missing argument) exits 2, as usage errors do elsewhere: a
// script can tell it from the command's own failure (`validate` finding bad routes exits 1).
const serving = subcommandOf(process.argv.slice(2)) === "serve"
const isUsageError = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  return CliError.isCliError(error) && error._tag === "ShowHelp" && error.errors.length > 0
}
const teardown: Runtime.Teardown = (exit, onExit) => {
  if (Exit.isFailure(exit) && (serving || endsOnCtrlC()) && Cause.hasInterruptsOnly(exit.cause)) return onExit(0)
  if (Exit.isFailure(exit) && isUsageError(exit.cause)) return onExit(2)
  return Runtime.defaultTeardown(exit, onExit)
}

// A reader that stops early (`gatehouse openapi | head`) closes the pipe: stop quietly, as other command-line tools
// do, rather than die of an unhandled EPIPE with a stack trace.
const stopOnClosedPipe = (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error
  process.exit(0)
}

// A server's stdout is its log, and a log that cannot be written (a closed pipe, a file on a full disk) must not stop
// it serving: the lines that fail are dropped, and stderr says so once. Write errors reach the stream's 'error'
// event, not the writer (a file's write fails inside Node's stream and is handed to it); the listener is what
// keeps them from being thrown. If stderr fails too, there is no one left to tell.
const dropFailedLogLines = () => {
  let told = false
  return (error: NodeJS.ErrnoException) => {
    if (told) return
    told = true
    process.stderr.write(
      `gatehouse: cannot write the log to stdout (${error.code ?? error.message}): ` +
        "the lines that fail are dropped, the server keeps serving\n"
    )
  }
}

if (serving) {
  process.stdout.on("error", dropFailedLogLines())
  process.stderr.on("error", () => {})
} else process.stdout.on("error", stopOnClosedPipe)

// Deep imports only: the @effect/platform-node barrel loads undici 8, which crashes on Node 20.
gatehouseCli.pipe(
  Command.run({ version: versionInfo(process.env).version }),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain({ teardown })
)
