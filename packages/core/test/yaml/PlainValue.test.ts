import { afterEach, assert, describe, it, vi } from "@effect/vitest"
import { Alias, parseDocument } from "yaml"
import { parseYaml } from "../../src/yaml/YamlDocument.js"
import { prng, randomYaml } from "./RandomYaml.js"

// What yaml's own `Document.toJS` makes of a document (the behaviour parseYaml's value must keep).
const yamlValue = (text: string) =>
  parseDocument(text, { uniqueKeys: false, merge: true, logLevel: "silent" }).toJS({ maxAliasCount: 100_000 }) ?? null

const ourValue = (text: string) => {
  const result = parseYaml(text)
  if (result._tag === "Invalid") return assert.fail(`refused: ${JSON.stringify(result.issues)}`)
  return result.document.value
}

describe("the plain value of a document", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it("is yaml's toJS value: merge keys, aliases, `__proto__`, redefined anchors, duplicate keys", () => {
    const documents = [
      "base: &b {host: h, port: 1}\napp:\n  <<: *b\n  port: 2\n",
      "a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc:\n  <<: [*a, *b]\n  w: 0\n", // earlier sources win
      "a: &a {x: 1}\nb: &b\n  <<: *a\n  y: 2\nc: {<<: *b, z: 3}\n", // a merge source with its own merge
      "a: &a {~: 1, 2: two, true: t}\nb: {<<: *a}\n", // merged keys are converted like yaml's `Map` keys
      "__proto__: {polluted: true}\nconstructor: 1\nk: {__proto__: [1]}\n",
      "x: &x 1\nl: [&x 2, *x]\nm: *x\n", // an alias means the last anchor of its name before it
      "o: &o [&o 1]\np: *o\n",
      "a: 1\na: 2\nb: {c: 1, c: [2]}\n",
      '"<<": not a merge\nk: {"<<": 1}\n',
      "a: &a\n  k: v\nlist: [*a, *a, {<<: *a}]\n",
      "? a\n: 1\n? b\n",
      ""
    ]
    for (const text of documents) assert.deepStrictEqual(ourValue(text), yamlValue(text), JSON.stringify(text))
    const value = ourValue("__proto__: {polluted: true}\n") as Record<string, unknown>
    assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
    assert.deepStrictEqual(Object.keys(value), ["__proto__"])
  })

  it("is yaml's toJS value on random documents with anchors, aliases and merge keys", () => {
    const random = prng(42)
    const generate = randomYaml(random, { anchors: true })
    let compared = 0
    for (let i = 0; i < 300; i++) {
      const text = generate.document(2 + Math.floor(random() * 6))
      const result = parseYaml(text)
      if (result._tag === "Invalid") continue
      compared++
      assert.deepStrictEqual(result.document.value, yamlValue(text), JSON.stringify(text))
    }
    assert.isAbove(compared, 200)
  })

  it("shares an alias's value with its anchor, as yaml does", () => {
    const value = ourValue("a: &a {x: 1}\nb: *a\n") as { a: unknown; b: unknown }
    assert.strictEqual(value.a, value.b)
  })

  // yaml's `Alias.resolve` scans every anchor and alias of the document for each alias: n aliases cost n²
  // (16,000 aliases in 64 KiB took 5 s; 1 MiB did not finish in two minutes). The value is built without it.
  it("never resolves an alias through yaml's quadratic Alias.resolve", () => {
    const resolve = vi.spyOn(Alias.prototype, "resolve")
    const aliases = `base: &b {x: 1}\nlist: [${Array.from({ length: 2000 }, () => "*b").join(", ")}]\nm: {<<: *b}\n`
    const value = ourValue(aliases) as { list: ReadonlyArray<unknown> }
    assert.strictEqual(value.list.length, 2000)
    assert.strictEqual(resolve.mock.calls.length, 0)
  })

  it("still applies yaml's alias count (`maxAliasCount`), counting nested aliases", () => {
    const text = `a: &a [1]\nb: &b [*a, *a]\nc: [${Array.from({ length: 30 }, () => "*b").join(", ")}]\n`
    const refused = parseYaml(text, { limits: { maxAliasCount: 50 } })
    assert.strictEqual(refused._tag, "Invalid")
    if (refused._tag === "Invalid") assert.match(refused.issues[0]!.message, /aliases more than 50 times/)
    assert.strictEqual(parseYaml(text, { limits: { maxAliasCount: 100 } })._tag, "Parsed")
    assert.throws(() => parseDocument(text).toJS({ maxAliasCount: 50 }), /Excessive alias count/)
    assert.doesNotThrow(() => parseDocument(text).toJS({ maxAliasCount: 100 }))
  })
})
