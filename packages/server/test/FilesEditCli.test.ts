import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { GatehouseClient } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { gatehouseCommand, runCli } from "../../../test/support/Cli.js"
import { requireTool } from "../../../test/support/e2e.js"
import { startTestServer } from "../../../test/support/TestServer.js"

// `gatehouse files edit` as an operator runs it, against a real server (in this process) and its routes directory.
// The editor is a shell script the test writes: it records the path and mode of the file it was given, then does
// what the test says to it (the file is its last argument, as `$EDITOR "$@"` passes it after the editor's own words).
// TMPDIR is a directory of the test's, so what the CLI leaves behind there (nothing, or the kept copy) is seen.

const web = "web:\n  host: 127.0.0.1\n  port: 9\n"
const edited = "web:\n  host: 127.0.0.1\n  port: 10\n"
const invalid = "web:\n  port: 99999\n  bind: nope\n"

const python = requireTool("python3")

const editServer = Effect.gen(function* () {
  const server = yield* startTestServer({ routeFiles: { "web.yml": web } })
  const client = yield* Effect.service(GatehouseClient).pipe(
    Effect.provide(GatehouseClient.layer({ baseUrl: server.baseUrl, apiKey: server.apiKey }))
  )
  const tmp = path.join(server.dir, "tmp")
  fs.mkdirSync(tmp)
  const seen = path.join(server.dir, "seen")
  // An editor script: `body` runs with "$f" the file to edit.
  const editor = (name: string, body: string) => {
    const script = path.join(server.dir, name)
    const record = `for f; do :; done\nprintf '%s %s\\n' "$f" "$(stat -c %a "$f")" > '${seen}'\n`
    fs.writeFileSync(script, `#!/bin/sh\n${record}${body}\n`, { mode: 0o755 })
    return script
  }
  const edit = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) =>
    runCli(["files", "edit", ...args, "--server", server.origin], {
      cwd: server.dir,
      env: { GATEHOUSE_API_KEY: server.apiKey, TMPDIR: tmp, VISUAL: "", EDITOR: "", ...env }
    })
  // The file the editor was given and its mode, as it recorded them (none: it did not run).
  const editorSaw = () => {
    if (!fs.existsSync(seen)) return undefined
    const [file, mode] = fs.readFileSync(seen, "utf8").trim().split(" ")
    fs.rmSync(seen)
    return { file: file!, mode: mode! }
  }
  const onDisk = (name: string) => fs.readFileSync(path.join(server.routesDir, name), "utf8")
  const version = (filename: string) =>
    Effect.map(client.files.readWithEtag({ query: { type: "routes", filename } }), (read) =>
      (read.etag ?? assert.fail("no ETag")).replace(/^"|"$/g, "")
    )
  // The CLI's copies left in TMPDIR (tsx, running the CLI from its sources, keeps its cache there too).
  const leftInTmp = () => fs.readdirSync(tmp).filter((name) => name.startsWith("gatehouse-edit-"))
  return { server, tmp, editor, edit, editorSaw, onDisk, version, leftInTmp }
})

// Each test starts the CLI a few times, each a Node with tsx on the sources (about 2 s; more on a busy machine).
const timeout = 120_000

describe("gatehouse files edit", () => {
  it.live(
    "writes the edited file over the version read and prints its new version; the private copy is removed",
    () =>
      Effect.gen(function* () {
        const { editor, edit, editorSaw, onDisk, version, leftInTmp } = yield* editServer
        // $VISUAL before $EDITOR, run as shell text (its own words before the file).
        const script = editor("replace.sh", `printf '${edited.replace(/\n/g, "\\n")}' > "$f"`)
        const failing = editor("fail.sh", "exit 1")
        const run = yield* edit(["web.yml"], { VISUAL: `${script} --wait`, EDITOR: failing })
        assert.strictEqual(run.code, 0, run.stderr)
        assert.strictEqual(onDisk("web.yml"), edited)
        assert.match(
          run.stdout,
          new RegExp(
            `^routes file web\\.yml written.* \\(${edited.length} bytes, version ${yield* version("web.yml")}\\)\\n$`
          )
        )
        const saw = editorSaw() ?? assert.fail("the editor did not run")
        assert.strictEqual(path.basename(saw.file), "web.yml")
        assert.strictEqual(saw.mode, "600")
        assert.isFalse(fs.existsSync(saw.file))
        assert.deepStrictEqual(leftInTmp(), [])
      }).pipe(Effect.scoped),
    timeout
  )

  it.live(
    "an unchanged file is not written; an editor that fails writes nothing, and keeps what it saved in the copy",
    () =>
      Effect.gen(function* () {
        const { editor, edit, editorSaw, onDisk, version, leftInTmp } = yield* editServer
        const before = yield* version("web.yml")

        const unchanged = yield* edit(["web.yml"], { EDITOR: editor("touch.sh", 'touch "$f"') })
        assert.strictEqual(unchanged.code, 0, unchanged.stderr)
        assert.strictEqual(unchanged.stdout, "no changes; nothing was written\n")
        assert.isDefined(editorSaw())
        assert.strictEqual(yield* version("web.yml"), before)

        const quit = yield* edit(["web.yml"], { EDITOR: editor("quit.sh", "exit 3") })
        assert.strictEqual(quit.code, 1)
        assert.match(quit.stderr, /^gatehouse: the editor \(.*quit\.sh\) exited with status 3; nothing was written\n$/)
        assert.isDefined(editorSaw())
        assert.deepStrictEqual(leftInTmp(), [])

        // As vim's `:cq` after a `:w`: the run failed, so nothing is written, but the saved edit is not thrown away.
        const failed = yield* edit(["web.yml"], { EDITOR: editor("fail.sh", `printf 'x: 1\\n' > "$f"\nexit 3`) })
        assert.strictEqual(failed.code, 1)
        const kept =
          /^gatehouse: the editor \(.*fail\.sh\) exited with status 3; nothing was written; what it saved is kept in (\S+)\n$/.exec(
            failed.stderr
          )
        assert.isNotNull(kept, failed.stderr)
        assert.isDefined(editorSaw())
        assert.strictEqual(onDisk("web.yml"), web)
        assert.strictEqual(fs.readFileSync(kept![1]!, "utf8"), "x: 1\n")
        assert.strictEqual(leftInTmp().length, 1)
      }).pipe(Effect.scoped),
    timeout
  )

  it.live(
    "invalid content is refused with each problem; the copy is kept where it says, and its put command writes it",
    () =>
      Effect.gen(function* () {
        const { server, editor, edit, editorSaw, onDisk, version } = yield* editServer
        const before = yield* version("web.yml")
        const run = yield* edit(["web.yml"], {
          EDITOR: editor("invalid.sh", `printf '${invalid.replace(/\n/g, "\\n")}' > "$f"`)
        })
        assert.strictEqual(run.code, 1)
        const copy = (editorSaw() ?? assert.fail("the editor did not run")).file
        const lines = run.stderr.split("\n")
        assert.deepStrictEqual(lines.slice(0, 3), [
          "gatehouse: validation failed: 2 problems; nothing was written",
          "  web.yml:2:9: web.port: port 99999 is out of range 0–65535",
          "  web.yml:3:9: web.bind: `nope` is not an IP address: `bind` takes an IPv4 or IPv6 literal such as " +
            "0.0.0.0, 127.0.0.1 or ::"
        ])
        assert.strictEqual(
          lines[3],
          `gatehouse: your edit is kept in ${copy}; fix it there, then write it: ` +
            `gatehouse files put web.yml --if-match ${before} --from ${copy}`
        )
        assert.strictEqual(fs.readFileSync(copy, "utf8"), invalid)
        assert.strictEqual(onDisk("web.yml"), web)

        // Fixed in place, the copy is written by the command printed.
        fs.writeFileSync(copy, edited)
        const put = yield* runCli([...lines[3]!.split(": ").at(-1)!.split(" ").slice(1), "--server", server.origin], {
          cwd: server.dir,
          env: { GATEHOUSE_API_KEY: server.apiKey }
        })
        assert.strictEqual(put.code, 0, put.stderr)
        assert.strictEqual(onDisk("web.yml"), edited)
      }).pipe(Effect.scoped),
    timeout
  )

  it.live(
    "a write the server fails for any other reason (a file over its size limit) keeps the copy too",
    () =>
      Effect.gen(function* () {
        const { editor, edit, editorSaw, onDisk, version } = yield* editServer
        const before = yield* version("web.yml")
        // 9 MB of a comment: valid YAML, over the 8 MiB any file may have.
        const script = editor("huge.sh", `{ printf '#'; head -c 9000000 /dev/zero | tr '\\0' 'x'; } >> "$f"`)
        const run = yield* edit(["web.yml"], { EDITOR: script })
        assert.strictEqual(run.code, 1)
        const copy = (editorSaw() ?? assert.fail("the editor did not run")).file
        const lines = run.stderr.split("\n")
        assert.match(lines[0]!, /^gatehouse: the server answered 413: .*limit/)
        assert.strictEqual(
          lines[1],
          `gatehouse: your edit is kept in ${copy}; to write it: gatehouse files put web.yml --if-match ${before} ` +
            `--from ${copy}`
        )
        assert.strictEqual(fs.statSync(copy).size, web.length + 9_000_001)
        assert.strictEqual(onDisk("web.yml"), web)
      }).pipe(Effect.scoped),
    timeout
  )

  it.live(
    "a change made while the editor is open is not overwritten (412): the copy is kept, with how to compare",
    () =>
      Effect.gen(function* () {
        const { server, editor, edit, editorSaw, onDisk } = yield* editServer
        const theirs = "web:\n  host: 127.0.0.1\n  port: 11\n"
        // Someone else saves the file on the server before the editor exits.
        const script = editor(
          "race.sh",
          `printf '${edited.replace(/\n/g, "\\n")}' > "$f"\n` +
            `printf '${theirs.replace(/\n/g, "\\n")}' > '${path.join(server.routesDir, "web.yml")}'`
        )
        const run = yield* edit(["web.yml"], { EDITOR: script })
        assert.strictEqual(run.code, 1)
        const copy = (editorSaw() ?? assert.fail("the editor did not run")).file
        assert.strictEqual(
          run.stderr,
          'gatehouse: routes file "web.yml" was changed since it was read (its ETag no longer matches If-Match): ' +
            "read it again and redo the edit; nothing was written\n" +
            `gatehouse: your edit is kept in ${copy}; to compare it with the file as it is now: ` +
            `gatehouse files get web.yml | diff -u - ${copy}\n` +
            "gatehouse: then redo the edit (gatehouse files edit web.yml) or write your copy over the version files " +
            `get prints: gatehouse files put web.yml --if-match VERSION --from ${copy}\n`
        )
        assert.strictEqual(fs.readFileSync(copy, "utf8"), edited)
        assert.strictEqual(onDisk("web.yml"), theirs)

        // A file to create that someone else created meanwhile is not overwritten either.
        const api = "api:\n  port: 9\n"
        const createRace = editor(
          "create-race.sh",
          `printf '${api.replace(/\n/g, "\\n")}' > "$f"\n` +
            `printf '${theirs.replace(/\n/g, "\\n")}' > '${path.join(server.routesDir, "api.yml")}'`
        )
        const created = yield* edit(["api.yml", "--create"], { EDITOR: createRace })
        assert.strictEqual(created.code, 1)
        const createdCopy = (editorSaw() ?? assert.fail("the editor did not run")).file
        assert.strictEqual(
          created.stderr.split("\n")[0],
          'gatehouse: routes file "api.yml" already exists (If-None-Match: * only creates a file); nothing was written'
        )
        assert.include(created.stderr, `gatehouse: your edit is kept in ${createdCopy};`)
        assert.strictEqual(fs.readFileSync(createdCopy, "utf8"), api)
        assert.strictEqual(onDisk("api.yml"), theirs)
      }).pipe(Effect.scoped),
    timeout
  )

  it.live(
    "--create starts from an empty buffer and only creates; a missing file without it is not edited",
    () =>
      Effect.gen(function* () {
        const { editor, edit, editorSaw, onDisk, leftInTmp } = yield* editServer
        const api = "api:\n  port: 9\n"
        const script = editor("api.sh", `[ -s "$f" ] && exit 9\nprintf '${api.replace(/\n/g, "\\n")}' > "$f"`)

        const missing = yield* edit(["api.yml"], { EDITOR: script })
        assert.strictEqual(missing.code, 1)
        assert.strictEqual(
          missing.stderr,
          'gatehouse: routes file "api.yml" not found; to start a new one: gatehouse files edit api.yml --create\n'
        )
        assert.isUndefined(editorSaw())

        const created = yield* edit(["api.yml", "--create"], { EDITOR: script })
        assert.strictEqual(created.code, 0, created.stderr)
        assert.match(created.stdout, /^routes file api\.yml written/)
        assert.strictEqual(path.basename((editorSaw() ?? assert.fail("the editor did not run")).file), "api.yml")
        assert.strictEqual(onDisk("api.yml"), api)

        const exists = yield* edit(["web.yml", "--create"], { EDITOR: script })
        assert.strictEqual(exists.code, 1)
        assert.strictEqual(
          exists.stderr,
          'gatehouse: routes file "web.yml" already exists; to edit it: gatehouse files edit web.yml\n'
        )
        assert.isUndefined(editorSaw())
        assert.deepStrictEqual(leftInTmp(), [])
      }).pipe(Effect.scoped),
    timeout
  )

  it.live.skipIf(python.skip)(
    "the editor gets the terminal: what is typed into it reaches the file",
    () =>
      Effect.gen(function* () {
        const { server, tmp, editor, onDisk } = yield* editServer
        // As a terminal editor does, the script asks the controlling terminal (/dev/tty), which an editor started
        // in a session of its own would not have.
        const script = editor(
          "ask.sh",
          `printf 'port? ' > /dev/tty\nread port < /dev/tty\nprintf 'web:\\n  port: %s\\n' "$port" > "$f"`
        )
        const driver = path.join(import.meta.dirname, "support", "pty_type.py")
        const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GATEHOUSE_")))
        const args = ["files", "edit", "web.yml", "--server", server.origin]
        const outcome = yield* Effect.callback<string>((resume) => {
          execFile(
            "python3",
            [driver, "port? ", "12\r", process.execPath, ...gatehouseCommand(args)],
            {
              cwd: server.dir,
              env: {
                ...env,
                NODE_OPTIONS: "",
                GATEHOUSE_API_KEY: server.apiKey,
                TMPDIR: tmp,
                VISUAL: "",
                EDITOR: script
              },
              timeout: 90_000
            },
            (error, stdout) => resume(Effect.succeed(error === null ? stdout : String(error)))
          )
        })
        assert.match(outcome, /^0\n/, outcome)
        assert.strictEqual(onDisk("web.yml"), "web:\n  port: 12\n")
      }).pipe(Effect.scoped),
    timeout
  )
})
