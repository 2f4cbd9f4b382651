import { type ChildProcess, spawn } from "node:child_process"
import { Effect, type Scope } from "effect"

/** A daemon started for a test scope: its PID, its output so far, and a stop that waits for it to exit. */
export interface Daemon {
  readonly pid: number
  readonly log: () => string
  /** SIGTERM by PID, then waits for the exit (SIGKILL after 10 s); idempotent (the scope calls it too). */
  readonly stop: Effect.Effect<void>
}

const exited = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

/**
 * Spawns `command` in the foreground (so the PID is the daemon's own), then polls `ready` every 50 ms until it holds
 * (failing with the daemon's output after `timeoutMs`, or at once if the daemon exits). Stopped by PID when the
 * scope closes.
 */
export const startDaemon = (options: {
  readonly label: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  readonly ready: Effect.Effect<boolean>
  readonly timeoutMs?: number
}): Effect.Effect<Daemon, Error, Scope.Scope> =>
  Effect.gen(function* () {
    let output = ""
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child = spawn(options.command, [...options.args], {
          cwd: options.cwd,
          env: { ...process.env, ...options.env },
          stdio: ["ignore", "pipe", "pipe"]
        })
        child.stdout.on("data", (chunk) => (output += chunk))
        child.stderr.on("data", (chunk) => (output += chunk))
        return child
      }),
      (child) =>
        Effect.suspend(() => {
          if (child.exitCode !== null || child.signalCode !== null) return Effect.void
          child.kill("SIGTERM")
          return exited(child).pipe(
            Effect.timeoutOrElse({
              duration: 10_000,
              orElse: () =>
                Effect.andThen(
                  Effect.sync(() => child.kill("SIGKILL")),
                  exited(child)
                )
            })
          )
        })
    )
    const stop = Effect.suspend(() => {
      if (child.exitCode !== null || child.signalCode !== null) return Effect.void
      child.kill("SIGTERM")
      return exited(child)
    })
    const deadline = Date.now() + (options.timeoutMs ?? 15_000)
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        return yield* Effect.fail(new Error(`${options.label} exited before it was ready:\n${output}`))
      }
      if (yield* options.ready) break
      if (Date.now() > deadline) return yield* Effect.fail(new Error(`${options.label} not ready in time:\n${output}`))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
    }
    return { pid: child.pid!, log: () => output, stop }
  })
