import { assert, describe, it } from "@effect/vitest"
import { batchesOf } from "../src/websocket/WebSocketSession.js"

describe("frames written together", () => {
  it("groups consecutive frames up to the limit, in order; a frame over the limit goes alone", () => {
    assert.deepStrictEqual(batchesOf(["aa", "bb", "cc", "dd"], 4), [
      ["aa", "bb"],
      ["cc", "dd"]
    ])
    assert.deepStrictEqual(batchesOf(["a", "toolong", "b", "c"], 3), [["a"], ["toolong"], ["b", "c"]])
    assert.deepStrictEqual(batchesOf(["one"], 1), [["one"]])
    const many = Array.from({ length: 1000 }, (_, i) => `frame ${i}`) as [string, ...Array<string>]
    const batches = batchesOf(many, 100)
    assert.deepStrictEqual(batches.flat(), many)
    for (const batch of batches) assert.isAtMost(batch.join("").length, 100)
  })
})
