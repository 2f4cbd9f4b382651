import { assert, describe, it } from "@effect/vitest"
import { StreamEndpoints } from "@gatehouse-edge/contract/api"
import { logLineJson } from "../src/api/LogLineJson.js"
import type { ContainerLogLine } from "../src/domain/index.js"

// A deterministic pseudo-random sequence (a test that fails must fail again).
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}

// Characters that need escapes or are easy to get wrong: quotes, backslashes, controls, DEL, U+2028/9 (JSON.stringify
// leaves them), a BMP character, an astral one (a surrogate pair), lone surrogates, the replacement character.
const tricky = [
  '"',
  "\\",
  "\n",
  "\r",
  "\t",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u2028",
  "\u2029",
  "é",
  "€",
  "😀",
  "\ud800",
  "\udfff",
  "\ufffd",
  "/"
]

describe("logLineJson", () => {
  it("is JSON.stringify of the decoder's lines, escapes and all", () => {
    const next = random(42)
    const texts = ["", "plain text", "x".repeat(100), ...tricky, ...tricky.map((c) => `a${c}b`)]
    for (let i = 0; i < 5000; i++) {
      const length = Math.floor(next() * 40)
      texts.push(
        Array.from({ length }, () =>
          next() < 0.8 ? String.fromCharCode(32 + Math.floor(next() * 95)) : tricky[Math.floor(next() * tricky.length)]
        ).join("")
      )
    }
    for (const text of texts) {
      for (const line of [
        { stream: "stdout", line: text },
        { stream: "stderr", timestamp: "2026-11-24T10:00:00.123456789Z", line: text }
      ] satisfies ReadonlyArray<ContainerLogLine>) {
        assert.strictEqual(logLineJson(line), JSON.stringify(line), JSON.stringify(text))
      }
    }
  })

  it("is the encoder of the log stream's frames", () => {
    assert.strictEqual(StreamEndpoints.dockerLogs.toJson, logLineJson)
    assert.isUndefined(StreamEndpoints.uptime.toJson)
  })
})
