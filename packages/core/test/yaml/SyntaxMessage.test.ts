import { assert, describe, it } from "@effect/vitest"
import { parseYaml } from "../../src/yaml/YamlDocument.js"

// A value that shares no four characters with any English message.
const SECRET = "Qx7Zk9Wv2Jp4Rm8T"

const messagesOf = (text: string): ReadonlyArray<string> => {
  const result = parseYaml(text, { file: "gatehouse.yml" })
  return result._tag === "Invalid" ? result.issues.map((issue) => issue.message) : []
}

const pieces = Array.from({ length: SECRET.length - 3 }, (_, i) => SECRET.slice(i, i + 4))

/** The messages that hold any four characters of the secret in a row. */
const leaking = (messages: ReadonlyArray<string>) =>
  messages.filter((message) => pieces.some((piece) => message.includes(piece)))

// Where a value may sit in a file, and what may come before it on its line.
const contexts = [
  (value: string) => `password: ${value}\n`,
  (value: string) => `cluster:\n  password: ${value}\n`,
  (value: string) => `cluster: { password: ${value} }\n`,
  (value: string) => `list:\n  - ${value}\n`,
  (value: string) => `list: [${value}]\n`,
  (value: string) => `tls: { insecure: true }}\nsecret: ${value}\n`,
  (value: string) => `tls: [x]]\nsecret: ${value}\n`,
  (value: string) => `a: 1\n  b: 2\nsecret: ${value}\n`,
  (value: string) => `- a\nsecret: ${value}\n`,
  (value: string) => `secret: ${value}\n- x\n`,
  (value: string) => `secret: "x" ${value}\n`,
  (value: string) => `"secret": ${value}`
]

// Every printable ASCII character that is not a letter or digit, before and inside the value.
const punctuation = [..."!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ "]
const values = [
  SECRET,
  ...punctuation.map((c) => `${c}${SECRET}`),
  `"${SECRET}`,
  `'${SECRET}`,
  `"\\q${SECRET}"`,
  `"\\x${SECRET}"`,
  `"\\u${SECRET}"`,
  `"\\U${SECRET}"`,
  `!${SECRET}!x y`,
  `!!timestamp ${SECRET}`,
  `*a *${SECRET}`,
  `|2${SECRET}`,
  `${SECRET}: x`,
  `[${SECRET}`,
  `{${SECRET}`
]

describe("YAML syntax messages", () => {
  it("never quote a value that trips the parser: a secret written unquoted stays out of every message", () => {
    let refused = 0
    const leaks: Array<string> = []
    for (const context of contexts) {
      for (const value of values) {
        const text = context(value)
        const messages = messagesOf(text)
        if (messages.length > 0) refused++
        for (const message of leaking(messages)) leaks.push(`${JSON.stringify(text)}: ${message}`)
      }
    }
    assert.deepStrictEqual(leaks, [])
    // The cases reported: a password read as an alias, as a block scalar header, and the token after a stray `}`.
    assert.isAbove(refused, 100, "most of the inputs are refused, so the check covers their messages")
    for (const text of [`password: *${SECRET}\n`, `password: |${SECRET}\n`, `tls: {}}\nsecret: ${SECRET}\n`]) {
      assert.isNotEmpty(messagesOf(text), text)
    }
  })

  it("names the problem and its position", () => {
    const alias = parseYaml(`a: 1\npassword: *${SECRET}\n`)
    assert.strictEqual(alias._tag, "Invalid")
    if (alias._tag === "Invalid") {
      assert.deepInclude(alias.issues[0], {
        message:
          "an alias (`*name`) refers to no anchor defined before it: a value that starts with `*` must be quoted",
        line: 2,
        column: 11
      })
    }
    assert.deepStrictEqual(messagesOf(`password: |${SECRET}\n`), [
      "a block scalar header (`|` or `>`) followed by other characters: a value that starts with `|` or `>` must be quoted"
    ])
    // The parser's own messages keep what they say, without the token they quoted.
    assert.deepStrictEqual(messagesOf(`tls: {}}\nsecret: ${SECRET}\n`), [
      "Unexpected flow-map-end token in YAML stream",
      "Unexpected scalar token in YAML stream",
      "Unexpected map-value-ind token in YAML stream",
      "Unexpected scalar token in YAML stream"
    ])
  })

  it("passes on yaml's messages that quote nothing", () => {
    assert.deepStrictEqual(messagesOf("password: 'open\n"), ["Missing closing 'quote"])
    assert.deepStrictEqual(messagesOf("a:\n\tb: 1\n"), ["Tabs are not allowed as indentation"])
    assert.deepStrictEqual(messagesOf("a: [x, y\n"), [
      "Flow sequence in block collection must be sufficiently indented and end with a ]"
    ])
    assert.deepStrictEqual(messagesOf("a: &x [1, *x]\n"), ["an alias refers to a node that contains it (a cycle)"])
  })
})
