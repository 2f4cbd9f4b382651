import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { gatehouseCommand } from "../../../test/support/Cli.js"
import { startTestServer } from "../../../test/support/TestServer.js"
import { waitFor } from "../../../test/support/WaitFor.js"

// The terminal's interrupt key while `gatehouse files edit` waits for its editor. The terminal sends SIGINT to every
// process of its foreground group: the CLI, the shell that runs the editor and the editor. Here the CLI is started
// detached, so it leads a group of its own as it would in a shell, and the test sends SIGINT to that whole group.
// The editor is a script that tells the test when it is open (a file) and waits for its "user" (another file).

const web = "web:\n  host: 127.0.0.1\n  port: 9\n"
const edited = "web:\n  host: 127.0.0.1\n  port: 10\n"

const editing = Effect.gen(function* () {
  const server = yield* startTestServer({ routeFiles: { "web.yml": web } })
  const tmp = path.join(server.dir, "tmp")
  fs.mkdirSync(tmp)
  const marker = (name: string) => path.join(server.dir, name)
  const editor = (name: string, body: string) => {
    const script = path.join(server.dir, name)
    fs.writeFileSync(script, `#!/bin/sh\nf="$1"\n${body}\n`, { mode: 0o755 })
    return script
  }
  /** `gatehouse files edit web.yml` with `editor`, leading its own process group; killed with it at the end. */
  const startEdit = (script: string) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GATEHOUSE_")))
        const child = spawn(
          process.execPath,
          gatehouseCommand(["files", "edit", "web.yml", "--server", server.origin]),
          {
            cwd: server.dir,
            detached: true,
            env: { ...env, NODE_OPTIONS: "", GATEHOUSE_API_KEY: server.apiKey, TMPDIR: tmp, VISUAL: "", EDITOR: script }
          }
        )
        const output = { stdout: "", stderr: "" }
        child.stdout.on("data", (chunk) => (output.stdout += chunk))
        child.stderr.on("data", (chunk) => (output.stderr += chunk))
        const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
        // The process alone, before its output closes (an editor that outlives it holds the same pipes).
        const ended = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
        return { child, output, exited, ended }
      }),
      ({ child }) =>
        Effect.sync(() => child.exitCode === null && child.signalCode === null && killGroup(child, "SIGKILL"))
    )
  const seen = (name: string) =>
    waitFor(
      Effect.sync(() => fs.existsSync(marker(name))),
      (exists) => exists,
      `the editor's "${name}"`,
      60_000
    )
  const onDisk = () => fs.readFileSync(path.join(server.routesDir, "web.yml"), "utf8")
  const leftInTmp = () => fs.readdirSync(tmp).filter((name) => name.startsWith("gatehouse-edit-"))
  return { marker, editor, startEdit, seen, onDisk, leftInTmp }
})

/** What the terminal does on its interrupt key: the signal to the whole foreground process group. */
const killGroup = (child: ChildProcess, signal: NodeJS.Signals) => process.kill(-child.pid!, signal)

const timeout = 120_000

describe("gatehouse files edit, interrupted", () => {
  it.live(
    "an editor that takes SIGINT as its own key (Emacs' C-g) goes on editing, and what it saves then is written",
    () =>
      Effect.gen(function* () {
        const { marker, editor, startEdit, seen, onDisk, leftInTmp } = yield* editing
        const script = editor(
          "emacslike.sh",
          [
            `trap 'touch "${marker("interrupted")}"' INT`,
            `touch "${marker("open")}"`,
            // The user goes on typing until the test says they are done; the wait is the fake editor's, not the test's.
            `while [ ! -e "${marker("done")}" ]; do sleep 0.05; done`,
            `printf '${edited.replace(/\n/g, "\\n")}' > "$f"`
          ].join("\n")
        )
        const run = yield* startEdit(script)
        yield* seen("open")
        killGroup(run.child, "SIGINT")
        yield* seen("interrupted")
        // Both got the signal by now; the CLI must still be waiting for the editor.
        assert.strictEqual(run.child.exitCode, null, run.output.stderr)
        fs.writeFileSync(marker("done"), "")
        const code = yield* Effect.promise(() => run.exited)
        assert.strictEqual(code, 0, run.output.stderr)
        assert.strictEqual(onDisk(), edited)
        assert.match(run.output.stdout, /^routes file web\.yml written/)
        assert.deepStrictEqual(leftInTmp(), [])
      }).pipe(Effect.scoped),
    timeout
  )

  /** An editor that saves `content` (when given), says it is open, and waits for its user, with no trap: SIGINT kills it. */
  const plainEditor = (
    editor: (name: string, body: string) => string,
    marker: (name: string) => string,
    content?: string
  ) =>
    editor(
      "plain.sh",
      [
        ...(content === undefined ? [] : [`printf '${content.replace(/\n/g, "\\n")}' > "$f"`]),
        `touch "${marker("open")}"`,
        `while [ ! -e "${marker("done")}" ]; do sleep 0.05; done`
      ].join("\n")
    )

  it.live(
    "an editor killed by SIGINT passes it on: the CLI exits 130 and writes nothing, and keeps what it saved",
    () =>
      Effect.gen(function* () {
        const { marker, editor, startEdit, seen, onDisk, leftInTmp } = yield* editing
        const run = yield* startEdit(plainEditor(editor, marker, "x: 1\n"))
        yield* seen("open")
        killGroup(run.child, "SIGINT")
        const code = yield* Effect.promise(() => run.exited)
        assert.strictEqual(code, 130, run.output.stderr)
        const kept =
          /^gatehouse: the editor \(.*plain\.sh\) was killed by SIGINT; nothing was written; what it saved is kept in (\S+)\n$/.exec(
            run.output.stderr
          )
        assert.isNotNull(kept, run.output.stderr)
        assert.strictEqual(onDisk(), web)
        assert.strictEqual(leftInTmp().length, 1)
        assert.strictEqual(fs.readFileSync(kept![1]!, "utf8"), "x: 1\n")
      }).pipe(Effect.scoped),
    timeout
  )

  it.live(
    "an editor killed by SIGINT before it saved anything leaves nothing behind",
    () =>
      Effect.gen(function* () {
        const { marker, editor, startEdit, seen, onDisk, leftInTmp } = yield* editing
        const run = yield* startEdit(plainEditor(editor, marker))
        yield* seen("open")
        killGroup(run.child, "SIGINT")
        const code = yield* Effect.promise(() => run.exited)
        assert.strictEqual(code, 130, run.output.stderr)
        assert.match(
          run.output.stderr,
          /^gatehouse: the editor \(.*plain\.sh\) was killed by SIGINT; nothing was written\n$/
        )
        assert.strictEqual(onDisk(), web)
        assert.deepStrictEqual(leftInTmp(), [])
      }).pipe(Effect.scoped),
    timeout
  )

  it.live(
    "the CLI stopped with SIGTERM while its editor runs writes nothing and leaves the copy, naming it",
    () =>
      Effect.gen(function* () {
        const { marker, editor, startEdit, seen, onDisk, leftInTmp } = yield* editing
        const run = yield* startEdit(plainEditor(editor, marker, "x: 1\n"))
        yield* seen("open")
        run.child.kill("SIGTERM")
        const code = yield* Effect.promise(() => run.ended)
        // The editor, which outlived the CLI, is told its user is done; then the output is whole.
        fs.writeFileSync(marker("done"), "")
        yield* Effect.promise(() => run.exited)
        assert.notStrictEqual(code, 0, run.output.stderr)
        const named = /gatehouse: stopped; nothing was written; the copy is (\S+)\n/.exec(run.output.stderr)
        assert.isNotNull(named, run.output.stderr)
        assert.strictEqual(onDisk(), web)
        assert.strictEqual(leftInTmp().length, 1)
        assert.strictEqual(fs.readFileSync(named![1]!, "utf8"), "x: 1\n")
      }).pipe(Effect.scoped),
    timeout
  )
})
