import { spawn } from "node:child_process"
import type { Effect, Scope } from "effect"
import { type WatchedProcess, watchProcess } from "./WatchedProcess.js"

/**
 * Runs the real OpenSSH client (`ssh` on PATH) against `127.0.0.1:port` with only the given key: no config file,
 * no agent, no known_hosts, never a prompt. Killed when the scope closes if it is still running.
 */
export const runSsh = (options: {
  readonly port: number
  readonly user: string
  readonly identity: string
  readonly command?: string
}): Effect.Effect<WatchedProcess, never, Scope.Scope> => {
  const args = [
    ...["-F", "/dev/null", "-i", options.identity, "-p", String(options.port)],
    ...["-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes"],
    ...["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"],
    `${options.user}@127.0.0.1`,
    ...(options.command === undefined ? [] : [options.command])
  ]
  return watchProcess(() => {
    const child = spawn("ssh", args, { stdio: ["pipe", "pipe", "pipe"] })
    child.stdin.end()
    return child
  })
}
