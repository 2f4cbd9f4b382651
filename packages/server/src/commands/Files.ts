import type { FileList } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliExit } from "../CliExit.js"
import { print } from "./AuthOutput.js"
import { longCallTimeoutMs } from "./CallTimeouts.js"
import { readFileFor } from "./ClientFlags.js"
import { bareEtag, filename, fileType, putCommandFor } from "./FileArguments.js"
import { failRefused, isRefused, keepRefusal } from "./FileRefusal.js"
import { editCommand } from "./FilesEdit.js"
import { httpFlags, withClient } from "./HttpConnection.js"
import { failWith } from "./ServerConfig.js"
import { formatTable, plural } from "./Table.js"
import { utf8Text } from "./Utf8Text.js"

/** The editable files, one per line with its kind, then those the server loads but the API cannot address. */
export const formatFileList = (files: FileList): ReadonlyArray<string> => {
  const rows = [...files.config.map((name) => ["config", name]), ...files.routes.map((name) => ["routes", name])]
  const notEditable = (files.not_editable ?? []).map((f) => `not editable: ${f.filename}: ${f.problem}`)
  return [...(rows.length === 0 ? ["no editable files"] : formatTable(["TYPE", "FILENAME"], rows)), ...notEditable]
}

// `--if-match` as typed: `*`, an entity tag with its quotes (as `files get --json` prints it), or the bare value
// `files get` prints, which is quoted here.
const ifMatchHeader = (value: string) => {
  const typed = value.trim()
  return typed === "*" || /^(W\/)?".*"$/.test(typed) ? typed : `"${typed}"`
}

// A command line the parser cannot refuse by itself (flags that exclude each other): exit 2, as a usage error.
const usageError = (line: string) => Effect.andThen(Console.error(line), Effect.fail(new CliExit({ code: 2 })))

/** Everything on stdin, as is (not a terminal: a prompt for a whole file would only wait). */
const readStdin = Effect.callback<Buffer, Error>((resume) => {
  const chunks: Array<Buffer> = []
  const onData = (chunk: Buffer) => chunks.push(chunk)
  const onEnd = () => resume(Effect.succeed(Buffer.concat(chunks)))
  const onError = (error: Error) => resume(Effect.fail(error))
  process.stdin.on("data", onData).once("end", onEnd).once("error", onError)
  process.stdin.resume()
  return Effect.sync(() => {
    process.stdin.off("data", onData).off("end", onEnd).off("error", onError)
    process.stdin.pause()
  })
})

/** The text to send: `--from FILE`, else stdin when something is piped in; a terminal on stdin is a usage error. */
const readContent = (command: string, from: Option.Option<string>) =>
  Effect.gen(function* () {
    if (Option.isSome(from)) return yield* utf8Text(yield* readFileFor(from.value, "the file"), from.value)
    if (process.stdin.isTTY) {
      return yield* usageError(`gatehouse files ${command}: give the content with --from FILE or on stdin`)
    }
    const bytes = yield* readStdin.pipe(
      Effect.catch((error) => failWith([`gatehouse: cannot read stdin: ${error.message}`]))
    )
    return yield* utf8Text(bytes, "stdin")
  })

const list = Command.make(
  "list",
  httpFlags,
  Effect.fn("gatehouse.files.list")(function* (flags) {
    const files = yield* withClient(flags, (c) => c.files.list())
    yield* print(flags.json, files, formatFileList)
  })
).pipe(Command.withDescription("The files the API can edit: the config file and the route files"))

const get = Command.make(
  "get",
  { ...httpFlags, filename, type: fileType },
  Effect.fn("gatehouse.files.get")(function* (flags) {
    const query = { type: flags.type, filename: flags.filename }
    const file = yield* withClient(flags, (c) => c.files.readWithEtag({ query }))
    if (flags.json) return yield* Console.log(JSON.stringify({ ...query, etag: file.etag, content: file.content }))
    // The bytes as they are (no newline added), so `files get x > x` leaves the file as it was.
    yield* Effect.callback<void>((resume) => {
      process.stdout.write(file.content, () => resume(Effect.void))
    })
    if (file.etag !== undefined) {
      yield* Console.error(
        `gatehouse: ${flags.type} file ${flags.filename} at version ${bareEtag(file.etag)}; to write over this ` +
          `version only: ${putCommandFor(flags.type, flags.filename, { etag: file.etag })}`
      )
    }
  })
).pipe(Command.withDescription("Print a file's content, and its version (ETag) on stderr (--json: both as JSON)"))

const put = Command.make(
  "put",
  {
    ...httpFlags,
    filename,
    type: fileType,
    from: Flag.String("from").pipe(
      Flag.withDescription("Read the content from this file (default: stdin)"),
      Flag.optional
    ),
    ifMatch: Flag.String("if-match").pipe(
      Flag.withDescription("Write only if the file is still at this version (the ETag files get prints)"),
      Flag.optional
    ),
    create: Flag.Boolean("create").pipe(
      Flag.withDescription("Write only if the file does not exist yet"),
      Flag.withDefault(false)
    ),
    force: Flag.Boolean("force").pipe(
      Flag.withDescription("Write whatever the file holds now (no version check)"),
      Flag.withDefault(false)
    )
  },
  Effect.fn("gatehouse.files.put")(function* (flags) {
    // An edit is made to a version: which one must be said, so a change made meanwhile is never overwritten unseen.
    const conditions = [Option.isSome(flags.ifMatch), flags.create, flags.force].filter(Boolean).length
    if (conditions !== 1) {
      return yield* usageError(
        `gatehouse files put: ${conditions === 0 ? "say which version this replaces" : "give only one"}: ` +
          "--if-match ETAG (the version files get printed), --create (a new file) or --force (any version)"
      )
    }
    const headers = Option.isSome(flags.ifMatch)
      ? { "if-match": ifMatchHeader(flags.ifMatch.value) }
      : flags.create
        ? { "if-none-match": "*" }
        : {}
    const content = yield* readContent("put", flags.from)
    const result = yield* withClient(
      flags,
      (c) =>
        keepRefusal(
          c.files.writeWithEtag({ query: { type: flags.type, filename: flags.filename }, payload: content, headers })
        ),
      { answerWithinMs: longCallTimeoutMs }
    )
    if (isRefused(result)) return yield* failRefused(result, { nothingWritten: true })
    const { written, etag } = result
    yield* print(flags.json, { ...written, etag }, (w) =>
      etag === undefined
        ? `${w.message} (${w.bytes} bytes)`
        : `${w.message} (${w.bytes} bytes, version ${bareEtag(etag)})`
    )
  })
).pipe(
  Command.withDescription(
    "Validate and write a file (from --from or stdin) over the version named by --if-match, or --create, or --force"
  )
)

const validate = Command.make(
  "validate",
  {
    ...httpFlags,
    file: Argument.String("file").pipe(
      Argument.withDescription("A local file to check (default: stdin)"),
      Argument.optional
    ),
    type: fileType
  },
  Effect.fn("gatehouse.files.validate")(function* (flags) {
    const content = yield* readContent("validate", flags.file)
    const result = yield* withClient(
      flags,
      (c) => keepRefusal(c.files.validate({ query: { type: flags.type }, payload: content })),
      { answerWithinMs: longCallTimeoutMs }
    )
    if (isRefused(result)) {
      return yield* failRefused(result, { nothingWritten: false, file: Option.getOrUndefined(flags.file) })
    }
    yield* print(flags.json, result, (r) =>
      r.routes === undefined
        ? `valid ${r.type} file`
        : `valid ${r.type} file: ${plural(r.routes.length, "route")}` +
          (r.routes.length === 0 ? "" : ` (${r.routes.map((route) => route.alias).join(", ")})`)
    )
  })
).pipe(Command.withDescription("Check a file's content with the server's validator, without writing it"))

/** `gatehouse files ...`: the config file and route files over the HTTP API, written only over a known version. */
export const filesCommand = Command.make("files").pipe(
  Command.withDescription("Editable files: list, get, put, edit, validate (over HTTP)"),
  Command.withSubcommands([list, get, put, editCommand, validate])
)
