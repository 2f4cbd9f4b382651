import { assert, describe, it } from "@effect/vitest"
import { defaultYamlLimits, parseYaml, resolveYamlLimits } from "../../src/yaml/YamlDocument.js"
import { prng, randomYaml } from "./RandomYaml.js"

const refused = (text: string, limits: Parameters<typeof resolveYamlLimits>[0] = {}) => {
  const result = parseYaml(text, { limits })
  if (result._tag === "Parsed") assert.fail("expected the YAML to be refused")
  return result.issues
}

const accepted = (text: string, limits: Parameters<typeof resolveYamlLimits>[0] = {}) => {
  const result = parseYaml(text, { limits })
  if (result._tag === "Invalid") assert.fail(`expected a document, got ${JSON.stringify(result.issues).slice(0, 500)}`)
  return result.document
}

/** The review's document: one anchored route with a long description, reused by `copies` routes. */
const amplifiedRoutes = (copies: number, descriptionLength = 100_000): string => {
  const routes = Array.from({ length: copies }, (_, i) => `r${i}: *b`).join("\n")
  return `base: &b\n  port: 80\n  homepage: {description: "${"A".repeat(descriptionLength)}"}\n${routes}\n`
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8")

describe("the limit on scalar text after alias expansion", () => {
  it("refuses a long string reused by many aliases quickly, naming the limit and the alias that passes it", () => {
    const started = performance.now()
    // 143 KB that would expand to 400 million characters.
    const issues = refused(amplifiedRoutes(4000))
    assert.isBelow(performance.now() - started, 1_000)
    assert.strictEqual(issues.length, 1)
    assert.match(issues[0]!.message, /^document expands to more than 33554432 characters of text through aliases/)

    // 150,013 characters before the list (the intro, `base`, the string, `list`) and 100,000 more per alias (the
    // intro before the anchor is not part of it): the 9th alias passes 1,000,000.
    const list = Array.from({ length: 20 }, () => "  - *b").join("\n")
    const text = `intro: ${"i".repeat(50_000)}\nbase: &b "${"A".repeat(100_000)}"\nlist:\n${list}\n`
    const small = refused(text, { maxExpandedChars: 1_000_000 })
    assert.strictEqual(small[0]!.message.startsWith("document expands to more than 1000000 characters"), true)
    assert.deepStrictEqual([small[0]!.line, small[0]!.column], [12, 5])
  })

  it("counts a document without aliases as no more characters than it has bytes", () => {
    const styles = [
      "a: \"\\u00e9\\U0001F600\\x41\\t\\n\"\nb: 'it''s'\n",
      "a: |+\n    kept\n\n\nb: >\n    folded\n    lines\n\n",
      "a:\nb: ~\nc: null\nd: 0x1F\ne: 1e21\nf: .inf\ng: true\n",
      "key: plain scalar\n  continued over\n  more lines\n",
      "- [é, ü, 日本]\n- {? complex: x}\n",
      "<<: {a: 1}\nb: 2\n"
    ]
    const random = prng(20260316)
    const generated = Array.from({ length: 300 }, () => randomYaml(random).document(6))
    let checked = 0
    for (const text of [...styles, ...generated]) {
      if (parseYaml(text)._tag === "Invalid") continue // malformed random text: nothing to count
      accepted(text, { maxExpandedChars: bytes(text) })
      checked++
    }
    assert.isAtLeast(checked, 200)
  })

  it("accepts a route file at the size limit without aliases, and one that doubles itself through aliases", () => {
    const description = "D".repeat(100_000)
    const fill = (header: string, merge: string) => {
      let text = header
      for (let i = 0; bytes(text) + 100_100 < defaultYamlLimits.maxBytes; i++) {
        text += `r${i}:\n${merge}  port: ${1000 + i}\n  homepage: {description: "${description}"}\n`
      }
      assert.isAbove(bytes(text), defaultYamlLimits.maxBytes - 200_000)
      return text
    }
    accepted(fill("", ""))
    // Every route also merges 100,000 characters of shared defaults: 16 million characters from an 8 MiB file.
    const reused = accepted(fill(`defaults: &d {title: "${"t".repeat(100_000)}"}\n`, "  <<: *d\n"))
    assert.strictEqual((reused.value as Record<string, { title: string }>).r80!.title.length, 100_000)
  })

  it("accepts a file reusing small defaults in thousands of routes", () => {
    const defaults = `defaults: &d {host: backend.internal.example, scheme: http, homepage: {description: "${"d".repeat(100)}"}}\n`
    const routes = Array.from({ length: 5_000 }, (_, i) => `r${i}: {<<: *d, port: ${i}}`).join("\n")
    const document = accepted(`${defaults}${routes}\n`)
    assert.strictEqual((document.value as Record<string, { host: string }>).r4999!.host, "backend.internal.example")
  })

  it("follows a smaller size limit: 4 characters per byte unless set", () => {
    assert.strictEqual(defaultYamlLimits.maxExpandedChars, 4 * defaultYamlLimits.maxBytes)
    assert.strictEqual(resolveYamlLimits({ maxBytes: 1000 }).maxExpandedChars, 4000)
    assert.strictEqual(resolveYamlLimits({ maxBytes: 1000, maxExpandedChars: 10 }).maxExpandedChars, 10)
    // 600 bytes, 5,000 characters once expanded: refused under a 1,000-byte limit, accepted under the default.
    const text = `a: &a ${"x".repeat(100)}\nb: [${Array(49).fill("*a").join(", ")}]\n`
    assert.isBelow(bytes(text), 1000)
    assert.match(refused(text, { maxBytes: 1000 })[0]!.message, /more than 4000 characters/)
    accepted(text)
  })
})
