import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Schema } from "effect"
import { isSecretKey } from "../../src/yaml/SecretKeys.js"
import { validateYaml } from "../../src/yaml/ValidateYaml.js"

const Doc = Schema.Struct({
  name: Schema.optionalKey(Schema.String.check(Schema.isMinLength(3))),
  secret: Schema.optionalKey(Schema.String.check(Schema.isMinLength(40))),
  api_token: Schema.optionalKey(Schema.Number),
  root_password: Schema.optionalKey(Schema.Literals(["a", "b"])),
  nested: Schema.optionalKey(Schema.Struct({ client_secret: Schema.String })),
  settings: Schema.optionalKey(Schema.String)
})

const messagesOf = (text: string) => {
  const result = validateYaml(Doc, text, { file: "doc.yml" })
  if (result._tag === "Valid") return assert.fail("expected problems")
  return result.issues.map(formatIssue)
}

describe("secret keys", () => {
  it("recognises named secrets and keys that say they hold one, not paths, ids or public keys", () => {
    for (const key of [
      "secret",
      "password",
      "client_secret",
      "password_hash",
      "api_token",
      "root_password",
      "x_secret"
    ])
      assert.isTrue(isSecretKey(key), key)
    for (const key of ["secret_file", "password_file", "token_id", "host_key", "name", "secrets", "tokenizer", 0])
      assert.isFalse(isSecretKey(key), String(key))
  })

  it("quotes ordinary values but shows a value under a secret key as <redacted>, at the same line and column", () => {
    const messages = messagesOf(
      [
        "name: ab",
        "secret: TOP-SECRET-1",
        "api_token: TOP-SECRET-2",
        "root_password: TOP-SECRET-3",
        "nested: { client_secret: [TOP-SECRET-4] }",
        "settings: { client_secret: TOP-SECRET-5 }"
      ].join("\n")
    )
    assert.deepStrictEqual(messages, [
      'doc.yml:1:7: name: expected a value with a length of at least 3, got "ab"',
      "doc.yml:2:9: secret: expected a value with a length of at least 40, got <redacted>",
      "doc.yml:3:12: api_token: expected number, got <redacted>",
      "doc.yml:4:16: root_password: <redacted> is not one of `a`, `b`",
      "doc.yml:5:26: nested.client_secret: expected string, got <redacted>",
      "doc.yml:6:11: settings: expected string, got <redacted>"
    ])
  })
})
