import { assert, describe, it } from "@effect/vitest"
import { parseYaml, type YamlDocument } from "../../src/yaml/YamlDocument.js"

const parsed = (text: string): YamlDocument => {
  const result = parseYaml(text)
  if (result._tag === "Invalid") assert.fail(`expected a document, got ${JSON.stringify(result.issues)}`)
  return result.document
}

const invalid = (text: string, options: Parameters<typeof parseYaml>[1] = {}) => {
  const result = parseYaml(text, options)
  if (result._tag === "Parsed") assert.fail("expected the YAML to be refused")
  return result.issues
}

// 9 levels of 9 references: 9^8 × 9 ≈ 387 million strings once expanded.
const billionLaughs = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ..."bcdefghi".split("").map((name, i) => {
    const previous = "abcdefghi"[i]!
    return `${name}: &${name} [${Array(9).fill(`*${previous}`).join(",")}]`
  })
].join("\n")

describe("parseYaml", () => {
  it("returns the plain value of a well-formed document", () => {
    const document = parsed("app:\n  port: 8080\n  tags: [a, b]\n")
    assert.deepStrictEqual(document.value, { app: { port: 8080, tags: ["a", "b"] } })
    assert.deepStrictEqual(document.duplicateKeys, [])
  })

  it("returns null for an empty document or one with only comments", () => {
    assert.isNull(parsed("").value)
    assert.isNull(parsed("# nothing here\n").value)
  })

  it("reports every syntax error with its 1-based line and column, and the file", () => {
    const issues = invalid("ok: 1\nlist: [1, 2\nnext: 3\nquote: 'open\n", { file: "r.yml" })
    assert.isAbove(issues.length, 1)
    for (const issue of issues) {
      assert.strictEqual(issue.file, "r.yml")
      assert.isAtLeast(issue.line ?? 0, 2)
      assert.isAtLeast(issue.column ?? 0, 1)
    }
    const quote = issues.find((i) => i.message.includes("quote"))
    assert.deepStrictEqual([quote?.line, quote?.column], [5, 1])
  })

  it("points a bad indentation at its line", () => {
    const issues = invalid("app:\n  port: 1\n host: x\n")
    assert.strictEqual(issues[0]?.line, 3)
  })

  it("refuses several documents in one source", () => {
    const issues = invalid("a: 1\n---\nb: 2\n")
    assert.strictEqual(issues.length, 1)
    assert.include(issues[0]!.message, "single YAML document")
    assert.strictEqual(issues[0]!.line, 2)
  })

  it("refuses input over the size limit before parsing it", () => {
    const issues = invalid("a: 1\n".repeat(100), { limits: { maxBytes: 100 } })
    assert.match(issues[0]!.message, /500 bytes, over the limit of 100/)
  })

  it("counts the size in UTF-8 bytes, not characters", () => {
    assert.strictEqual(parseYaml("a: é", { limits: { maxBytes: 5 } })._tag, "Parsed")
    assert.strictEqual(parseYaml("a: éé", { limits: { maxBytes: 5 } })._tag, "Invalid")
  })

  it("refuses a billion-laughs document quickly, without expanding it", () => {
    const started = performance.now()
    const issues = invalid(billionLaughs)
    assert.isBelow(performance.now() - started, 1_000)
    assert.match(issues[0]!.message, /expands to more than 2000000 nodes/)
    assert.strictEqual(issues[0]!.line, 7) // g: the first level past 2,000,000 nodes
  })

  it("also enforces yaml's own alias count", () => {
    const text = `base: &b {x: 1}\n${Array.from({ length: 20 }, (_, i) => `r${i}: *b`).join("\n")}\n`
    const issues = invalid(text, { limits: { maxAliasCount: 10 } })
    assert.match(issues[0]!.message, /aliases more than 10 times/)
    assert.strictEqual(parseYaml(text)._tag, "Parsed")
  })

  it("allows an honest file that reuses one anchor in many places", () => {
    const routes = Array.from({ length: 300 }, (_, i) => `r${i}:\n  <<: *defaults\n  port: ${1000 + i}`).join("\n")
    const document = parsed(`defaults: &defaults {host: backend, scheme: http}\n${routes}\n`)
    assert.deepStrictEqual((document.value as Record<string, unknown>).r299, {
      host: "backend",
      scheme: "http",
      port: 1299
    })
  })

  it("refuses an alias that refers to its own ancestor (a cycle)", () => {
    assert.match(invalid("a: &a [1, *a]\n")[0]!.message, /contains it \(a cycle\)/)
  })

  it("refuses an alias to an anchor that does not exist", () => {
    const issues = invalid("a: 1\nb: *nope\n")
    assert.match(issues[0]!.message, /^an alias \(`\*name`\) refers to no anchor/)
    assert.notInclude(issues[0]!.message, "nope", "the name is not quoted: it may be a password written unquoted")
    assert.deepStrictEqual([issues[0]!.line, issues[0]!.column], [2, 4])
  })

  it("refuses a merge key whose value is not a mapping", () => {
    assert.match(invalid("a: &a [1]\nb:\n  <<: *a\n")[0]!.message, /merge key `<<` needs a mapping/)
  })

  it("refuses nesting deeper than the limit", () => {
    assert.match(
      invalid(`${"[".repeat(10)}${"]".repeat(10)}`, { limits: { maxDepth: 5 } })[0]!.message,
      /deeper than 5/
    )
    assert.strictEqual(parseYaml(`${"[".repeat(10)}${"]".repeat(10)}`)._tag, "Parsed")
  })

  it("applies merge keys, own keys winning", () => {
    const document = parsed("base: &b {host: h, port: 1}\napp:\n  <<: *b\n  port: 2\n")
    assert.deepStrictEqual((document.value as Record<string, unknown>).app, { host: "h", port: 2 })
  })

  it("lists duplicate keys with the position of the repeat and of the first", () => {
    const document = parsed("app:\n  port: 1\n  port: 2\nother: 1\napp: {}\n")
    assert.deepStrictEqual(
      document.duplicateKeys.map((d) => [d.path, d.position, d.first.line]),
      [
        [["app", "port"], { line: 3, column: 3 }, 2],
        [["app"], { line: 5, column: 1 }, 1]
      ]
    )
  })
})

describe("YamlDocument.positionOf", () => {
  const text = [
    "base: &base", //               1
    "  host: backend", //           2
    "  port: 80", //                3
    "app:", //                      4
    "  <<: *base", //               5
    "  scheme: http", //            6
    "  tags:", //                   7
    "    - one", //                 8
    "    - two", //                 9
    "  empty:", //                  10
    "  ref: *base" //               11
  ].join("\n")
  const document = parsed(text)

  it("points at a value, or at its key", () => {
    assert.deepStrictEqual(document.positionOf(["app", "scheme"]), { line: 6, column: 11 })
    assert.deepStrictEqual(document.positionOf(["app", "scheme"], "key"), { line: 6, column: 3 })
  })

  it("indexes into sequences", () => {
    assert.deepStrictEqual(document.positionOf(["app", "tags", 1]), { line: 9, column: 7 })
  })

  it("follows merge keys to where the value is written", () => {
    assert.deepStrictEqual(document.positionOf(["app", "port"]), { line: 3, column: 9 })
  })

  it("follows aliases when descending, but points at the alias itself when it is the target", () => {
    assert.deepStrictEqual(document.positionOf(["app", "ref", "host"]), { line: 2, column: 9 })
    assert.deepStrictEqual(document.positionOf(["app", "ref"]), { line: 11, column: 8 })
  })

  it("points an empty value at its key", () => {
    assert.deepStrictEqual(document.positionOf(["app", "empty"]), { line: 10, column: 3 })
  })

  it("points a missing key at the deepest part of the path that exists", () => {
    assert.deepStrictEqual(document.positionOf(["app", "nope", "deeper"]), { line: 4, column: 1 })
    assert.deepStrictEqual(document.positionOf(["app", "tags", 7]), { line: 7, column: 3 })
  })

  it("finds keys in a large mapping (indexed) and takes the last of duplicate keys", () => {
    const big = parsed(`${Array.from({ length: 50 }, (_, i) => `k${i}: ${i}`).join("\n")}\nk7: again\n`)
    assert.deepStrictEqual(big.positionOf(["k42"]), { line: 43, column: 6 })
    assert.deepStrictEqual(big.positionOf(["k7"], "key"), { line: 51, column: 1 })
  })
})
