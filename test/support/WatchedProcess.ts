import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { Deferred, Effect, type Scope } from "effect"

/** A child process's output so far, waits for text in it, and its end. */
export interface WatchedProcess {
  readonly stdout: () => string
  readonly stderr: () => string
  /** Waits until stdout matches (fails when the process ends first or after `timeoutMs`, with its output). */
  readonly stdoutMatching: (pattern: RegExp, timeoutMs?: number) => Effect.Effect<RegExpMatchArray, Error>
  readonly stderrMatching: (pattern: RegExp, timeoutMs?: number) => Effect.Effect<RegExpMatchArray, Error>
  /** The exit status (128 + n for a signal) once the process has ended, with all its output. */
  readonly exit: Effect.Effect<{ readonly code: number; readonly stdout: string; readonly stderr: string }>
  readonly signal: (signal: NodeJS.Signals) => Effect.Effect<void>
}

const signalNumbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }

/** Watches a spawned process, event-driven (no polling); SIGKILLs it when the scope closes if it still runs. */
export const watchProcess = (
  spawnChild: () => ChildProcessWithoutNullStreams
): Effect.Effect<WatchedProcess, never, Scope.Scope> =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(Effect.sync(spawnChild), (child) =>
      Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
    const output = { stdout: "", stderr: "" }
    const changed = new Set<() => void>()
    const notify = () => {
      for (const check of changed) check()
    }
    child.stdout.on("data", (chunk: Buffer) => {
      output.stdout += chunk.toString("utf8")
      notify()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output.stderr += chunk.toString("utf8")
      notify()
    })
    const exited = yield* Deferred.make<{ code: number; stdout: string; stderr: string }>()
    child.on("close", (code, signal) => {
      const status = code ?? (signal === null ? -1 : 128 + (signalNumbers[signal] ?? 0))
      Deferred.doneUnsafe(exited, Effect.succeed({ code: status, ...output }))
      notify()
    })
    const matching =
      (stream: "stdout" | "stderr") =>
      (pattern: RegExp, timeoutMs = 15_000) =>
        Effect.callback<RegExpMatchArray, Error>((resume) => {
          const check = () => {
            const match = output[stream].match(pattern)
            if (match !== null) resume(Effect.succeed(match))
            else if (child.exitCode !== null || child.signalCode !== null)
              resume(Effect.fail(new Error(`ended without ${pattern} on ${stream}: ${output[stream]}${output.stderr}`)))
          }
          changed.add(check)
          check()
          return Effect.sync(() => changed.delete(check))
        }).pipe(
          Effect.timeoutOrElse({
            duration: timeoutMs,
            orElse: () =>
              Effect.fail(
                new Error(`no ${pattern} on ${stream} within ${timeoutMs} ms: ${output[stream]}${output.stderr}`)
              )
          })
        )
    return {
      stdout: () => output.stdout,
      stderr: () => output.stderr,
      stdoutMatching: matching("stdout"),
      stderrMatching: matching("stderr"),
      exit: Deferred.await(exited),
      signal: (signal) =>
        Effect.sync(() => {
          child.kill(signal)
        })
    }
  })
