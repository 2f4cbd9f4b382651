import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { IssueCollector, MAX_ISSUES } from "../../src/yaml/IssueCollector.js"
import { validateYaml } from "../../src/yaml/ValidateYaml.js"

const Doc = Schema.Struct({ items: Schema.Array(Schema.Struct({ a: Schema.Number })) })

describe("the issue list", () => {
  it("keeps the first MAX_ISSUES problems and says that there were more", () => {
    const result = validateYaml(Doc, `items: [${Array(5000).fill("1").join(",")}]\n`, { file: "doc.yml" })
    assert.strictEqual(result._tag, "Invalid")
    const issues = result._tag === "Invalid" ? result.issues : []
    assert.strictEqual(issues.length, MAX_ISSUES + 1)
    assert.deepStrictEqual(issues[MAX_ISSUES - 1]!.path, ["items", MAX_ISSUES - 1])
    assert.deepInclude(issues[MAX_ISSUES]!, {
      path: [],
      message: `more than ${MAX_ISSUES} problems: only the first ${MAX_ISSUES} are listed`
    })
  })

  it("counts the issues of nested collectors, which share the list", () => {
    const root = new IssueCollector(() => ({ file: "f.yml" }))
    const nested = root.nested(["app"])
    for (let i = 0; i < MAX_ISSUES + 10; i++) (i % 2 === 0 ? root : nested).add([i], "bad")
    root.addAt(["x"], "late", { line: 1 })
    assert.strictEqual(root.issues.length, MAX_ISSUES + 1)
    assert.include(root.issues.at(-1)!.message, "more than")
  })
})
