import { spawnSync } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { commandLine, quoteWord } from "../../src/hypervisor/ShellWords.js"

/** What a real POSIX shell makes of `words`: each argument printed on its own NUL-terminated record. */
const throughShell = (words: ReadonlyArray<string>): Array<string> => {
  const result = spawnSync("/bin/sh", ["-c", `printf '%s\\0' ${commandLine(words)}`], { encoding: "utf8" })
  assert.strictEqual(result.status, 0, result.stderr)
  return result.stdout.split("\0").slice(0, -1)
}

describe("ShellWords", () => {
  it("quotes every word, plain ones included", () => {
    assert.strictEqual(quoteWord("tail"), "'tail'")
    assert.strictEqual(quoteWord(""), "''")
    assert.strictEqual(quoteWord("it's"), `'it'\\''s'`)
    assert.strictEqual(commandLine(["tail", "-n", "5", "a b"]), "'tail' '-n' '5' 'a b'")
  })

  it("every word reaches a real /bin/sh as one literal argument", () => {
    const words = [
      "plain",
      "with space",
      "it's",
      "''",
      `"double"`,
      "$(touch /tmp/gatehouse-shellwords-pwned)",
      "`id`",
      "a;b|c&d>e<f",
      "line1\nline2",
      "tab\there",
      "* ? ~ # ! {a,b} \\",
      "",
      "ünïcödé ✓"
    ]
    assert.deepStrictEqual(throughShell(words), words)
  })
})
