import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Console, Effect, Logger } from "effect"
import { prettyLogger } from "../src/PrettyLogger.js"

/** Text from outside (a container label, a route file alias): a forged line, a colour, a window-title change (OSC). */
const hostile = "proxy.evil\nFAKE LINE \x1b[31mRED\r.port \x1b]0;t\x07"

/** What `effect` writes through the pretty logger: the bytes Node's console gives its stream, as on a terminal. */
const written = <A, E>(effect: Effect.Effect<A, E>, colors: boolean) =>
  Effect.gen(function* () {
    let bytes = ""
    const sink = new Writable({
      write(chunk, _encoding, done) {
        bytes += chunk.toString()
        done()
      }
    })
    yield* Effect.exit(
      effect.pipe(
        Effect.provide(Logger.layer([prettyLogger({ colors })])),
        Effect.provideService(Console.Console, new NodeConsole({ stdout: sink, stderr: sink }))
      )
    )
    return bytes
  })

// ESC (colours, cursor moves, OSC), BEL (ends an OSC), CR (rewrites the line), and the other C0/C1 controls but
// tab and the logger's own line feeds.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const controls = (text: string) => [...text.matchAll(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g)].map((match) => match[0])

describe("the pretty logger", () => {
  it.effect("writes outside text in a message and its annotations escaped: no control byte, no line of its own", () =>
    Effect.gen(function* () {
      const out = yield* written(
        Effect.logWarning(`route problem: ${hostile}`, hostile).pipe(Effect.annotateLogs({ [hostile]: hostile })),
        false
      )
      assert.deepStrictEqual(controls(out), [])
      const lines = out.trimEnd().split("\n")
      // The first line (the message), the second part, the annotation: a line each, nothing forged between them.
      assert.strictEqual(lines.length, 3, out)
      assert.match(lines[0]!, /WARN \(#\d+\): route problem: proxy\.evil\\nFAKE LINE \\u001b\[31mRED\\r\.port/)
      assert.include(lines[1]!, "\\u001b]0;t\\u0007")
      assert.match(lines[2]!, /^ {2}proxy\.evil\\nFAKE .*: proxy\.evil\\nFAKE /)
    })
  )

  it.effect("with colours on, the only escape sequences are its own colours", () =>
    Effect.gen(function* () {
      const out = yield* written(Effect.logWarning(hostile), true)
      // The logger colours a warning yellow (33); red (31) and an OSC can only come from the text.
      assert.notInclude(out, "\x1b[31m")
      assert.notInclude(out, "\x1b]")
      assert.notInclude(out, "\x07")
      assert.include(out, "\\u001b[31mRED")
      assert.strictEqual(out.trimEnd().split("\n").length, 1, out)
    })
  )

  it.effect("an error's message is escaped, its stack frames stay on lines of their own", () =>
    Effect.gen(function* () {
      const out = yield* written(Effect.logError("reloading failed", Cause.die(new Error(hostile))), false)
      assert.deepStrictEqual(controls(out), [])
      const lines = out.trimEnd().split("\n")
      assert.match(lines[1]!, /^ {2}Error: proxy\.evil\\nFAKE LINE \\u001b\[31mRED\\r\.port \\u001b\]0;t\\u0007$/)
      assert.isTrue(lines.length > 2, out)
      for (const frame of lines.slice(2)) assert.match(frame, /^\s+at /)
    })
  )

  it.effect("a value that is not a string (an error as a message part, an object) is shown escaped too", () =>
    Effect.gen(function* () {
      const out = yield* written(
        Effect.logWarning("event not published", new Error(hostile), { label: hostile }),
        false
      )
      assert.deepStrictEqual(controls(out), [])
      assert.notInclude(out, "\nFAKE")
    })
  )
})
