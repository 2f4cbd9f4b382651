import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Schema } from "effect"
import { decodeFields } from "../../src/yaml/DecodeReporting.js"
import { GoDuration } from "../../src/yaml/GoDuration.js"
import { IssueCollector, noLocation } from "../../src/yaml/IssueCollector.js"
import { validateYaml } from "../../src/yaml/ValidateYaml.js"

// A slice of the gatehouse.yml shape (SPEC §13): the helper is meant for it as much as for routes.
const Config = Schema.Struct({
  http: Schema.optionalKey(Schema.Struct({ addr: Schema.String, max_body: Schema.optionalKey(Schema.String) })),
  data_dir: Schema.optionalKey(Schema.String),
  auth: Schema.optionalKey(
    Schema.Struct({
      session_ttl: Schema.optionalKey(GoDuration({ minimum: 60_000 })),
      users: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String, password_hash: Schema.String })))
    })
  ),
  log: Schema.optionalKey(Schema.Struct({ format: Schema.Literals(["json", "pretty"]) }))
})

const problems = (text: string) => {
  const result = validateYaml(Config, text, { file: "gatehouse.yml", emptyDocument: {} })
  if (result._tag === "Valid") assert.fail("expected problems")
  return result
}

describe("validateYaml", () => {
  it("decodes a valid document", () => {
    const result = validateYaml(Config, "http: {addr: 127.0.0.1:8888}\nauth:\n  session_ttl: 24h\n")
    assert.deepStrictEqual(result, {
      _tag: "Valid",
      value: { http: { addr: "127.0.0.1:8888" }, auth: { session_ttl: 86_400_000 } }
    })
  })

  it("returns every problem at once, each with path, line, column and file", () => {
    const result = problems(
      [
        "htp:", //                     1 unknown key, did you mean http
        "  addr: x",
        "auth:",
        "  session_ttl: 5s", //        4 under the minimum
        "  users:",
        "    - name: admin", //        6 missing password_hash
        "log:",
        "  format: jsn" //             8 not one of json, pretty
      ].join("\n")
    )
    assert.strictEqual(result._tag, "Invalid")
    assert.deepStrictEqual(result.issues.map(formatIssue), [
      "gatehouse.yml:1:1: htp: unknown key `htp` (did you mean `http`?)",
      "gatehouse.yml:4:16: auth.session_ttl: must be at least 1m, got 5s",
      "gatehouse.yml:6:7: auth.users.0.password_hash: missing required key `password_hash`",
      "gatehouse.yml:8:11: log.format: `jsn` is not one of `json`, `pretty` (did you mean `json`?)"
    ])
  })

  it("reports wrong types with the value it got", () => {
    const result = problems("data_dir: 12\n")
    assert.deepStrictEqual(result.issues[0], {
      path: ["data_dir"],
      message: "expected string, got 12",
      line: 1,
      column: 11,
      file: "gatehouse.yml"
    })
  })

  it("reports duplicate keys", () => {
    const result = problems("data_dir: a\ndata_dir: b\n")
    assert.deepStrictEqual(result.issues.map(formatIssue), [
      "gatehouse.yml:2:1: data_dir: duplicate key `data_dir` (first defined at line 1)"
    ])
  })

  it("tells a YAML syntax error apart from a schema failure", () => {
    const result = problems("http: [\n")
    assert.strictEqual(result._tag, "InvalidYaml")
    assert.strictEqual(result.issues[0]?.file, "gatehouse.yml")
  })

  it("uses emptyDocument for an empty file", () => {
    assert.deepStrictEqual(validateYaml(Config, "# all defaults\n", { emptyDocument: {} }), {
      _tag: "Valid",
      value: {}
    })
    assert.strictEqual(validateYaml(Config, "")._tag, "Invalid")
  })
})

describe("decodeFields", () => {
  it("keeps the fields that decode when others fail, and names the failed ones", () => {
    const issues = new IssueCollector(noLocation)
    const Struct = Schema.Struct({ a: Schema.Number, b: Schema.optionalKey(Schema.String), c: Schema.String })
    const result = decodeFields(Struct, { a: 1, b: 2, d: true }, issues)
    assert.deepStrictEqual(result.value, { a: 1 })
    assert.deepStrictEqual([...result.failed].sort(), ["b", "c"])
    assert.deepStrictEqual(
      issues.issues.map((i) => [i.path, i.message]),
      [
        [["d"], "unknown key `d`"],
        [["b"], "expected string, got 2"],
        [["c"], "missing required key `c`"]
      ]
    )
  })
})
