import { spawn } from "node:child_process"
import type { ServerChannel } from "ssh2"
import type { Login } from "./Policy.js"

/** What runs in an approved session. */
export interface SessionCommand {
  /** What the client asked to run (`ssh host cmd`); undefined for an interactive shell. */
  readonly requested: string | undefined
  /** The gate's fixed command, if configured: it runs instead, with the request in `SSH_ORIGINAL_COMMAND`. */
  readonly fixed: string | undefined
  readonly shell: string
  /** Whether the client asked for a terminal (then a shell runs interactive: `-i`). */
  readonly pty: boolean
}

const argumentsFor = (command: SessionCommand): Array<string> => {
  const script = command.fixed ?? command.requested
  if (script !== undefined) return ["-c", script]
  return command.pty ? ["-i"] : []
}

/**
 * Runs the session's command with its standard streams on the SSH channel, then reports its exit status (or
 * signal) and closes the channel. The environment is minimal (no variables of the gate leak in, and the client
 * cannot set any). The command runs as the gate's own OS user; switching to the login's user would need root.
 */
export const runSession = (channel: ServerChannel, command: SessionCommand, login: Login): void => {
  const child = spawn(command.shell, argumentsFor(command), {
    stdio: "pipe",
    env: {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: process.env.HOME ?? "/",
      LANG: process.env.LANG ?? "C.UTF-8",
      SHELL: command.shell,
      GATEHOUSE_SSH_SRC: login.src,
      GATEHOUSE_SSH_USER: login.localUser,
      ...(command.fixed !== undefined && command.requested !== undefined
        ? { SSH_ORIGINAL_COMMAND: command.requested }
        : {})
    }
  })
  // The client may send more than the command reads; a closed stdin is not an error of the session.
  child.stdin.on("error", () => {})
  channel.pipe(child.stdin)
  child.stdout.pipe(channel, { end: false })
  child.stderr.pipe(channel.stderr, { end: false })
  child.on("error", (error) => {
    channel.stderr.write(`Gatehouse: cannot start ${command.shell}: ${error.message}\n`)
    channel.exit(127)
    channel.end()
  })
  child.on("close", (code, signal) => {
    if (signal !== null) channel.exit(signal.replace(/^SIG/, ""), false, "")
    else channel.exit(code ?? 0)
    channel.end()
  })
  // The client went away: hang up the command, as sshd does.
  channel.on("close", () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGHUP")
  })
}
