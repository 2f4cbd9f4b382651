import * as os from "node:os"
import * as path from "node:path"
import { FileNotFound, FilePreconditionFailed, type FileType } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { CliExit } from "../CliExit.js"
import { print } from "./AuthOutput.js"
import { longCallTimeoutMs } from "./CallTimeouts.js"
import { editorOf, runEditor } from "./Editor.js"
import { bareEtag, filename, fileType, putCommandFor, shellWord } from "./FileArguments.js"
import { isRefused, keepRefusal, refusalLines } from "./FileRefusal.js"
import { type HttpFlags, httpFlags, withClient } from "./HttpConnection.js"
import { failWith } from "./ServerConfig.js"
import { utf8Text } from "./Utf8Text.js"

interface EditFlags extends HttpFlags {
  readonly filename: string
  readonly type: FileType
  readonly create: boolean
  readonly json: boolean
}

/** The text an edit starts from, and the version its write replaces (`create`: none, the file must not exist). */
interface Original {
  readonly content: string
  readonly version: { readonly etag: string } | "create"
}

// `gatehouse files <verb> NAME [--type config]`, to be pasted into a shell.
const filesCommandFor = (verb: string, type: FileType, name: string) =>
  `gatehouse files ${verb} ${shellWord(name)}${type === "routes" ? "" : ` --type ${type}`}`

/** The file and its version, or the empty text of a file to create (which must not exist yet). */
const readOriginal = (flags: EditFlags) =>
  Effect.gen(function* () {
    const read = yield* withClient(flags, (c) =>
      c.files.readWithEtag({ query: { type: flags.type, filename: flags.filename } }).pipe(
        Effect.map(Option.some),
        Effect.catchIf(
          (error) => error instanceof FileNotFound,
          () => Effect.succeedNone
        )
      )
    )
    const named = `${flags.type} file "${flags.filename}"`
    if (flags.create) {
      if (Option.isSome(read)) {
        return yield* failWith([
          `gatehouse: ${named} already exists; to edit it: ${filesCommandFor("edit", flags.type, flags.filename)}`
        ])
      }
      return { content: "", version: "create" } satisfies Original
    }
    if (Option.isNone(read)) {
      return yield* failWith([
        `gatehouse: ${named} not found; to start a new one: ${filesCommandFor("edit", flags.type, flags.filename)} --create`
      ])
    }
    const { content, etag } = read.value
    // Without a version, the write could only be unconditional and overwrite a change made meanwhile unseen.
    if (etag === undefined) {
      return yield* failWith([`gatehouse: the server sent no version (ETag) of ${named}; nothing was edited`])
    }
    return { content, version: { etag } } satisfies Original
  })

/**
 * A private directory for the copy being edited (mkdtemp: only the user can enter it), removed at the end unless
 * `kept` says the user still needs the copy (an edit the server did not take).
 */
const editDirectory = (kept: Ref.Ref<boolean>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* Effect.acquireRelease(fs.makeTempDirectory({ prefix: "gatehouse-edit-" }), (dir) =>
      Effect.flatMap(Ref.get(kept), (keep) => (keep ? Effect.void : Effect.ignore(fs.remove(dir, { recursive: true }))))
    )
  })

/** Fails the command (exit 1) when the local copy cannot be made or read: nothing was written. */
const copyFailed = (what: string) => (error: { readonly message: string }) =>
  failWith([`gatehouse: cannot ${what} the copy to edit: ${error.message}; nothing was written`])

const edit = Effect.fn("gatehouse.files.edit")(function* (flags: EditFlags) {
  const fs = yield* FileSystem.FileSystem
  const query = { type: flags.type, filename: flags.filename }
  const original = yield* readOriginal(flags)
  const kept = yield* Ref.make(false)
  const dir = yield* editDirectory(kept).pipe(Effect.catch(copyFailed("make a directory for")))
  // The file's own name, so the editor picks its syntax (YAML) from it; 0600, as it may be the config and its secrets.
  const copy = path.join(dir, path.basename(flags.filename))
  yield* fs.writeFileString(copy, original.content, { mode: 0o600, flag: "wx" }).pipe(Effect.catch(copyFailed("write")))

  const editor = editorOf(process.env)
  const exit = yield* runEditor(editor, copy).pipe(
    // Stopped (SIGTERM) while the editor runs: the editor may outlive the CLI (its shell is what is stopped) and
    // still be editing the copy, so the copy stays where the user can find it.
    Effect.onInterrupt(() =>
      Effect.andThen(Ref.set(kept, true), Console.error(`gatehouse: stopped; nothing was written; the copy is ${copy}`))
    )
  )
  if ("killedBy" in exit || "failed" in exit || exit.code !== 0) {
    // Nothing is written after a failed run, as git does; but an editor that saved and then died (or was quit with
    // an error status) leaves an edit only in the copy, which then stays.
    const saved = yield* fs.readFile(copy).pipe(
      Effect.map((bytes) => Buffer.compare(bytes, Buffer.from(original.content)) !== 0),
      Effect.orElseSucceed(() => false)
    )
    if (saved) yield* Ref.set(kept, true)
    const keptNote = saved ? `; what it saved is kept in ${copy}` : ""
    if ("killedBy" in exit) {
      // As git does: an editor that died of the keyboard's interrupt passes it on (130, or 131 for SIGQUIT, the
      // status a shell gives a command killed by it); one killed by anything else is a failed run.
      const passedOn = exit.killedBy === "SIGINT" || exit.killedBy === "SIGQUIT"
      yield* Console.error(
        `gatehouse: the editor (${editor}) was killed by ${exit.killedBy}; nothing was written${keptNote}`
      )
      return yield* new CliExit({ code: passedOn ? 128 + os.constants.signals[exit.killedBy] : 1 })
    }
    const how = "failed" in exit ? `failed: ${exit.failed}` : `exited with status ${exit.code}`
    return yield* failWith([`gatehouse: the editor (${editor}) ${how}; nothing was written${keptNote}`])
  }
  const bytes = yield* fs.readFile(copy).pipe(Effect.catch(copyFailed("read")))
  // From here on the edit may exist only in the copy: it stays unless the server takes it (or nothing changed).
  yield* Ref.set(kept, true)
  const edited = yield* utf8Text(bytes, copy).pipe(
    Effect.tapError(() => Console.error(`gatehouse: your edit is kept in ${copy}`))
  )
  if (edited === original.content) {
    yield* Ref.set(kept, false)
    return yield* print(flags.json, { ...query, changed: false }, () => `no changes; nothing was written`)
  }

  const keptAt = `gatehouse: your edit is kept in ${copy}`
  const putCopy = putCommandFor(flags.type, flags.filename, original.version, copy)
  const headers = original.version === "create" ? { "if-none-match": "*" } : { "if-match": original.version.etag }
  const result = yield* withClient(
    flags,
    (c) =>
      keepRefusal(c.files.writeWithEtag({ query, payload: edited, headers })).pipe(
        Effect.catchIf(
          (error): error is FilePreconditionFailed => error instanceof FilePreconditionFailed,
          (error) => Effect.succeed({ stale: error })
        )
      ),
    { answerWithinMs: longCallTimeoutMs }
  ).pipe(Effect.onError(() => Console.error(`${keptAt}; to write it: ${putCopy}`)))
  if (isRefused(result)) {
    return yield* failWith([
      ...refusalLines(result, { nothingWritten: true }),
      `${keptAt}; fix it there, then write it: ${putCopy}`
    ])
  }
  if ("stale" in result) {
    return yield* failWith([
      `gatehouse: ${result.stale.message}`,
      `${keptAt}; to compare it with the file as it is now: ` +
        `${filesCommandFor("get", flags.type, flags.filename)} | diff -u - ${shellWord(copy)}`,
      `gatehouse: then redo the edit (${filesCommandFor("edit", flags.type, flags.filename)}) or write your copy ` +
        `over the version files get prints: ${putCommandFor(flags.type, flags.filename, { etag: "VERSION" }, copy)}`
    ])
  }
  yield* Ref.set(kept, false)
  const { written, etag } = result
  yield* print(flags.json, { ...written, etag }, (w) =>
    etag === undefined
      ? `${w.message} (${w.bytes} bytes)`
      : `${w.message} (${w.bytes} bytes, version ${bareEtag(etag)})`
  )
}, Effect.scoped)

/** `gatehouse files edit NAME`: the file in `$VISUAL`/`$EDITOR`, written back over the version read only. */
export const editCommand = Command.make(
  "edit",
  {
    ...httpFlags,
    filename,
    type: fileType,
    create: Flag.Boolean("create").pipe(
      Flag.withDescription("Start a new file from an empty buffer (written only if it does not exist yet)"),
      Flag.withDefault(false)
    )
  },
  edit
).pipe(
  Command.withDescription(
    "Edit a file in $VISUAL or $EDITOR (default vi) and write it back if the server validates it and nobody " +
      "changed it meanwhile"
  )
)
