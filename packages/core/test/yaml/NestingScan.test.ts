import { afterEach, assert, describe, it, vi } from "@effect/vitest"
import { Parser } from "yaml"
import { scanNesting } from "../../src/yaml/NestingScan.js"
import { parseYaml } from "../../src/yaml/YamlDocument.js"
import { builtDepth, prng, randomYaml } from "./RandomYaml.js"

const depthOf = (text: string) => scanNesting(text, 1000).depth

describe("scanNesting", () => {
  it("counts flow, block and mixed nesting as the parser builds it", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["a: 1\n", 1],
      ["plain scalar\n", 0],
      ["[[[1]]]", 3],
      ["{a: {b: [1]}}", 3],
      ["a:\n  b:\n    c: 1\n", 3],
      ["a:\n- x\n", 2], // a sequence at its key's column is nested in the mapping
      ["- - - x\n", 3],
      ["- a: 1\n  b: [x]\n", 3],
      ["? - a\n  - b\n: - c\n", 2],
      ["[a: [b]]", 3], // a pair in a flow sequence is a mapping
      ["[a: b: c]", 3], // …and another `:` nests another one
      ["[[a]: b]", 3], // a key that is a collection sits inside the pair's mapping
      ["[a, b]: c\n", 2],
      ["k:\n  - [1, {x: [2]}]\n", 5],
      ["a: 1\nb:\n  - c: [1]\n", 4]
    ]
    for (const [text, depth] of cases) assert.strictEqual(depthOf(text), depth, JSON.stringify(text))
  })

  it("ignores brackets and indicators in quoted scalars, comments, block scalars and plain scalars", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["a: '[[[ {{{ it''s'\nb: \"[[ \\\" {{\"\n", 1],
      ["a: 1 # [[[[ - - -\nb: 2\n", 1],
      ["a: |\n  [[[[\n  - - - x\n  k: v\nb: 1\n", 1],
      ["a: >-\n  {{{{\n\n  ]]]\nb: [1]\n", 2],
      ["a: x[1] {y}\n", 1], // brackets inside a block plain scalar are text
      ["a: some text\n  [continued - - -\nb: 1\n", 1], // a more-indented line continues the plain scalar
      ["- |\n  [[[\n- [1]\n", 2],
      ["a: 'multi\n  line [[[ '\nb: 1\n", 1]
    ]
    for (const [text, depth] of cases) assert.strictEqual(depthOf(text), depth, JSON.stringify(text))
  })

  it("stops at the first collection past the limit and says where it opens", () => {
    assert.deepStrictEqual(scanNesting("[".repeat(100), 64), { depth: 65, exceededAt: 64 })
    assert.deepStrictEqual(scanNesting(`${"[".repeat(64)}${"]".repeat(64)}`, 64), { depth: 64, exceededAt: undefined })
    assert.strictEqual(scanNesting("- ".repeat(100), 64).exceededAt, 128)
    const ladder = Array.from({ length: 70 }, (_, i) => `${" ".repeat(i)}k:`).join("\n")
    // The 65th mapping is the one whose key is indented 64 spaces.
    assert.strictEqual(scanNesting(ladder, 64).exceededAt, ladder.indexOf(`\n${" ".repeat(64)}k:`) + 1 + 64)
  })

  it("matches the depth yaml builds on random valid documents of every style", () => {
    const random = prng(20_260_523)
    const generate = randomYaml(random)
    let valid = 0
    for (let i = 0; i < 400; i++) {
      const text = generate.document(2 + Math.floor(random() * 10))
      const built = builtDepth(text)
      if (built.errors > 0) continue
      valid++
      assert.strictEqual(depthOf(text), built.depth, JSON.stringify(text))
    }
    assert.isAbove(valid, 300)
  })
})

describe("parseYaml and nesting", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  // Deep but legal: what a user could write; the limit (64) is generous.
  const blockMaps = (levels: number) =>
    `${Array.from({ length: levels }, (_, i) => `${" ".repeat(2 * i)}k${i}:`).join("\n")} leaf\n`
  const blockSeqs = (levels: number) => `${"- ".repeat(levels)}leaf\n`
  const flowSeqs = (levels: number) => `${"[".repeat(levels)}leaf${"]".repeat(levels)}\n`
  const mixed = (levels: number) => `${"- ".repeat(levels / 2)}${"[".repeat(levels / 2)}x${"]".repeat(levels / 2)}\n`

  it("accepts documents 60 and 64 levels deep in every style, and refuses 65", () => {
    for (const make of [blockMaps, blockSeqs, flowSeqs, mixed]) {
      for (const levels of [60, 64]) {
        const result = parseYaml(make(levels))
        assert.strictEqual(result._tag, "Parsed", `${make.name}(${levels})`)
      }
      if (make !== mixed) {
        const refused = parseYaml(make(65))
        assert.strictEqual(refused._tag, "Invalid", `${make.name}(65)`)
        if (refused._tag === "Invalid")
          assert.match(refused.issues[0]!.message, /^document nests deeper than 64 levels/)
      }
    }
  })

  it("malformed input that the scan reads shallower than the parser builds is stopped while parsing", () => {
    // The parser's own stack, watched after every token it reads.
    const next = Parser.prototype.next
    let deepest = 0
    vi.spyOn(Parser.prototype, "next").mockImplementation(function* (this: Parser, source: string) {
      yield* next.call(this, source)
      deepest = Math.max(deepest, this.stack.length)
    })
    // Found by fuzzing: the parser's error recovery nests a level per repetition where the scan sees one or two.
    for (const unit of ["a- k: \\-\n  ", "?b c\n\n - k: ", "k:>-\n  -1\t- k: ", ": #\n ,\t: "]) {
      const text = unit.repeat(Math.floor((1024 * 1024) / unit.length))
      assert.isUndefined(scanNesting(text, 64).exceededAt, JSON.stringify(unit))
      deepest = 0
      const result = parseYaml(text)
      assert.isAtMost(deepest, 64 + 3, JSON.stringify(unit))
      assert.strictEqual(result._tag, "Invalid", JSON.stringify(unit))
      if (result._tag === "Invalid") {
        assert.strictEqual(result.issues.length, 1)
        assert.match(
          result.issues[0]!.message,
          /^document nests deeper than 64 levels \(the limit is passed at line \d+/
        )
      }
    }
  })
})
