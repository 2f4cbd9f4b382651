import { assert, describe, it } from "@effect/vitest"
import { isSafeArgument, SafeArgument, unsafeArgumentReason } from "@gatehouse-edge/contract/domain"
import { Result, Schema } from "effect"
import { messagesAt } from "./helpers.js"

describe("SafeArgument", () => {
  it("accepts ordinary service names and absolute paths", () => {
    for (const value of [
      "nginx",
      "php8.2-fpm",
      "systemd-journald.service",
      "user@1000",
      "/var/log/syslog",
      "a_b:c,d=e+f%g"
    ]) {
      assert.isTrue(isSafeArgument(value), value)
    }
  })

  it("rejects each dangerous character of SPEC §5.4, naming it", () => {
    for (const char of "&|;$`'\"<>\\(){}*?!~#") {
      assert.strictEqual(unsafeArgumentReason(`nginx${char}x`), `must not contain \`${char}\``, char)
    }
  })

  it("rejects whitespace of every kind", () => {
    for (const value of ["a b", "a\tb", "a\nb", "a\rb", "a\u00a0b", "a\u2028b", "a\u3000b"]) {
      assert.strictEqual(unsafeArgumentReason(value), "must not contain whitespace", JSON.stringify(value))
    }
  })

  it("rejects control characters", () => {
    for (const value of ["a\u0000b", "a\u001bb", "a\u007fb", "a\u0085b", "a\u009bb"]) {
      assert.isDefined(unsafeArgumentReason(value), JSON.stringify(value))
      assert.isFalse(isSafeArgument(value))
    }
    assert.strictEqual(unsafeArgumentReason("a\u001bb"), "must not contain control characters")
  })

  it("rejects `..` path segments but not dots inside names", () => {
    for (const value of ["..", "../etc/passwd", "/var/log/../../etc/shadow", "/var/.."]) {
      assert.strictEqual(unsafeArgumentReason(value), "must not contain a `..` path segment", value)
    }
    assert.isTrue(isSafeArgument("/var/log/app..log"))
    assert.isTrue(isSafeArgument("/var/log/.hidden"))
  })

  it("rejects a leading `-` (it would be read as an option) and the empty string", () => {
    assert.strictEqual(unsafeArgumentReason("-f"), "must not start with `-`")
    assert.strictEqual(unsafeArgumentReason("--all"), "must not start with `-`")
    assert.isTrue(isSafeArgument("a-b"))
    assert.strictEqual(unsafeArgumentReason(""), "must not be empty")
  })

  it("is a Schema check with the reason as its message", () => {
    assert.deepStrictEqual(Schema.decodeUnknownResult(SafeArgument)("nginx"), Result.succeed("nginx"))
    const bad = Schema.decodeUnknownResult(SafeArgument)("a|b")
    assert.isTrue(Result.isFailure(bad) && bad.failure.message.includes("must not contain `|`"))
  })

  it("guards route proxmox services and files, character by character", () => {
    for (const char of "&|;$`'\"<>\\(){}*?!~#") {
      const yamlString = JSON.stringify(`svc${char}`)
      const text = `ct:\n  port: 80\n  proxmox: {node: pve, service: ${yamlString}, services: [${yamlString}], files: [${JSON.stringify(`/log${char}`)}]}\n`
      const expected = [`must not contain \`${char}\``]
      assert.deepStrictEqual(messagesAt(text, "ct.proxmox.service"), expected, char)
      assert.deepStrictEqual(messagesAt(text, "ct.proxmox.services.0"), expected, char)
      assert.deepStrictEqual(messagesAt(text, "ct.proxmox.files.0"), expected, char)
    }
  })
})
