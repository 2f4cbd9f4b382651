import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Schema } from "effect"
import { boundedInput, InputPreview, MAX_QUOTED_INPUT } from "../../src/yaml/InputPreview.js"
import { validateYaml } from "../../src/yaml/ValidateYaml.js"

const Doc = Schema.Struct({
  port: Schema.optionalKey(Schema.Number),
  scheme: Schema.optionalKey(Schema.Literals(["http", "https"])),
  items: Schema.optionalKey(Schema.Array(Schema.Struct({ a: Schema.Number })))
})

const messagesOf = (text: string) => {
  const result = validateYaml(Doc, text, { file: "doc.yml" })
  if (result._tag === "Valid") return assert.fail("expected problems")
  return result.issues.map(formatIssue)
}

describe("quoted inputs", () => {
  it("keeps short values whole and cuts long ones to a preview that says what was left out", () => {
    assert.strictEqual(boundedInput(5), 5)
    const short = { a: [1, 2], b: "x" }
    assert.strictEqual(boundedInput(short), short)
    const long = boundedInput("A".repeat(5000))
    assert.instanceOf(long, InputPreview)
    assert.strictEqual(String(long), `"${"A".repeat(MAX_QUOTED_INPUT)}…" (5,000 characters)`)
    assert.strictEqual(
      String(boundedInput(Array.from({ length: 300 }, (_, i) => i * 1_000_000))),
      "[0,1000000,2000000,3000000,4000000,5000000,6000000,7000000,8000000,9000000,10000000,… (300 items)]"
    )
  })

  it("leaves the values of secret keys out of a preview", () => {
    const preview = String(boundedInput({ client_secret: "TOP-SECRET", more: "x".repeat(200) }))
    assert.notInclude(preview, "TOP-SECRET")
    assert.include(preview, '"client_secret":<redacted>')
  })

  it("a document of aliases gets messages of bounded size, however far its aliases expand (5 MB quoted whole)", () => {
    const leaf = "A".repeat(500)
    const text = [
      `x0: &a ${leaf}`,
      `x1: &b [${Array(100).fill("*a").join(",")}]`,
      `port: [${Array(100).fill("*b").join(",")}]`,
      "scheme: *b",
      `items: [${Array(50).fill("*a").join(",")}]`
    ].join("\n")
    const messages = messagesOf(`${text}\n`).filter((m) => !m.includes("unknown key"))
    assert.strictEqual(messages.length, 52, messages.join("\n"))
    for (const message of messages) assert.isBelow(message.length, 400, message)
    assert.include(messages[0]!, "(100 items)")
  })
})
