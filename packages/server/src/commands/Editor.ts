import * as os from "node:os"
import * as Effect from "effect/Effect"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import { withInterruptsIgnored } from "./InterruptsIgnored.js"

/**
 * The editor the user chose, found as git finds it: `$VISUAL`, else `$EDITOR`, else `vi`. It is shell text
 * (`code --wait`, `emacsclient -t`), run by {@link runEditor} as git runs it.
 */
export const editorOf = (env: Readonly<Record<string, string | undefined>>): string =>
  [env.VISUAL, env.EDITOR].find((editor) => editor !== undefined && editor.trim() !== "") ?? "vi"

/** How an editor run ended: its exit code, the signal that killed it, or why it has none (not started). */
export type EditorExit = { readonly code: number } | { readonly killedBy: NodeJS.Signals } | { readonly failed: string }

// A shell reports a command killed by signal N as the status 128 + N.
const signalOfStatus = (status: number): NodeJS.Signals | undefined =>
  status > 128
    ? (Object.entries(os.constants.signals).find(([, number]) => number === status - 128)?.[0] as NodeJS.Signals)
    : undefined

/**
 * Runs `editor` on `file` and waits for it: `sh -c '<editor> "$@"' <editor> <file>`, so the editor's own words and
 * quotes stay shell text while the file's path is one argument, whatever it holds. The editor gets the terminal
 * (stdin, stdout, stderr inherited) and stays in the CLI's process group: a detached one would be stopped by the
 * terminal (SIGTTIN) the moment it reads a key. So the terminal's SIGINT and SIGQUIT reach all three: the editor
 * decides what they mean (Emacs' C-g is SIGINT, and it goes on editing), while the CLI ignores them (see
 * {@link withInterruptsIgnored}) and so does the shell, which would otherwise die of them and leave the editor
 * behind (dash does not exec the last command). The shell catches them with a trap rather than ignoring them:
 * an ignored signal stays ignored in the editor it starts, a caught one is back to its default there.
 */
export const runEditor = Effect.fn("Editor.run")(function* (editor: string, file: string) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  return yield* spawner
    .exitCode(
      ChildProcess.make("sh", ["-c", `trap : INT QUIT; ${editor} "$@"`, editor, file], {
        stdin: "inherit",
        stdout: "inherit",
        stderr: "inherit",
        detached: false
      })
    )
    .pipe(
      withInterruptsIgnored,
      Effect.map((code): EditorExit => {
        const killedBy = signalOfStatus(code)
        return killedBy === undefined ? { code } : { killedBy }
      }),
      Effect.catch((error) => Effect.succeed<EditorExit>({ failed: error.message }))
    )
})
