import * as Effect from "effect/Effect"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"

/**
 * The editor the user chose, found as git finds it: `$VISUAL`, else `$EDITOR`, else `vi`. It is shell text
 * (`code --wait`, `emacsclient -t`), run by {@link runEditor} as git runs it.
 */
export const editorOf = (env: Readonly<Record<string, string | undefined>>): string =>
  [env.VISUAL, env.EDITOR].find((editor) => editor !== undefined && editor.trim() !== "") ?? "vi"

/** How an editor run ended: its exit code, or why it has none (not started, killed by a signal). */
export type EditorExit = { readonly code: number } | { readonly failed: string }

/**
 * Runs `editor` on `file` and waits for it: `sh -c '<editor> "$@"' <editor> <file>`, so the editor's own words and
 * quotes stay shell text while the file's path is one argument, whatever it holds. The editor gets the terminal
 * (stdin, stdout, stderr inherited) and stays in the CLI's process group: a detached one would be stopped by the
 * terminal (SIGTTIN) the moment it reads a key.
 */
export const runEditor = Effect.fn("Editor.run")(function* (editor: string, file: string) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  return yield* spawner
    .exitCode(
      ChildProcess.make("sh", ["-c", `${editor} "$@"`, editor, file], {
        stdin: "inherit",
        stdout: "inherit",
        stderr: "inherit",
        detached: false
      })
    )
    .pipe(
      Effect.map((code): EditorExit => ({ code })),
      Effect.catch((error) => Effect.succeed<EditorExit>({ failed: error.message }))
    )
})
