import { assert, describe, it } from "@effect/vitest"
import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import { deepDocuments } from "../../../../test/support/DeepYaml.js"
import { loadConfig } from "../../src/config/LoadConfig.js"
import { readLabelValue } from "../../src/routes/LabelValue.js"
import { validateRoutesYaml } from "../../src/routes/RoutesYaml.js"
import { parseYaml } from "../../src/yaml/YamlDocument.js"

// The hardening issue: 1 MiB of nesting used to hold the event loop for seconds and answer "Maximum call stack
// size exceeded". Every YAML entry point of the core must refuse it with the depth limit and where it was passed.
const assertRefusedAtDepth = (
  issues: ReadonlyArray<ValidationIssue>,
  crossedAt: { readonly line: number; readonly column: number },
  limit = 64
) => {
  assert.strictEqual(issues.length, 1, JSON.stringify(issues.slice(0, 3)))
  const [issue] = issues
  assert.match(issue!.message, new RegExp(`^document nests deeper than ${limit} levels`))
  assert.include(issue!.message, `line ${crossedAt.line}, column ${crossedAt.column}`)
  assert.deepStrictEqual([issue!.line, issue!.column], [crossedAt.line, crossedAt.column])
}

describe("1 MiB of nesting is refused by the depth limit, with where it was passed", () => {
  for (const { name, text, crossedAt } of deepDocuments()) {
    it(`parseYaml: ${name}`, () => {
      const result = parseYaml(text, { file: "deep.yml" })
      assert.strictEqual(result._tag, "Invalid")
      if (result._tag === "Invalid") {
        assertRefusedAtDepth(result.issues, crossedAt)
        assert.strictEqual(result.issues[0]!.file, "deep.yml")
      }
    })

    it(`validateRoutesYaml: ${name}`, () => {
      const report = validateRoutesYaml(text)
      assert.strictEqual(report._tag, "InvalidYaml")
      assertRefusedAtDepth(report.issues, crossedAt)
    })

    it(`loadConfig: ${name}`, () => {
      const result = loadConfig({ file: { path: "gatehouse.yml", text }, env: {}, cwd: "/srv/app" })
      assert.strictEqual(result._tag, "Invalid")
      if (result._tag === "Invalid") {
        assert.isTrue(result.syntax)
        assertRefusedAtDepth(result.issues, crossedAt)
      }
    })
  }

  it("a Docker label value (its own limit: 16 levels in 64 KiB)", () => {
    for (const { name, text } of deepDocuments(64 * 1024)) {
      if (!text.startsWith("[") && !text.startsWith("{")) continue // only inline flow YAML is parsed in a label
      const read = readLabelValue(text)
      assert.isTrue("problem" in read, name)
      if ("problem" in read) assert.match(read.problem, /^invalid inline YAML: document nests deeper than 16 levels/)
    }
    const read = readLabelValue(`${"[".repeat(16)}${"]".repeat(16)}`)
    assert.deepStrictEqual("value" in read ? JSON.stringify(read.value) : read.problem, "[".repeat(16) + "]".repeat(16))
  })
})
