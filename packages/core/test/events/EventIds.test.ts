import { assert, describe, it } from "@effect/vitest"
import { EventId } from "@gatehouse-edge/contract/domain"
import { Effect, Schema } from "effect"
import { v7 } from "uuid"
import * as EventIds from "../../src/events/EventIds.js"

/** The millisecond timestamp in a UUIDv7's first 48 bits. */
const msecsOf = (id: string) => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16)

const assertIncreasing = (ids: ReadonlyArray<string>) => {
  for (let i = 1; i < ids.length; i++) assert.isTrue(ids[i - 1]! < ids[i]!, `id ${i} sorts after id ${i - 1}`)
}

describe("EventIds", () => {
  it.effect("are valid UUIDv7s carrying the given time", () =>
    Effect.gen(function* () {
      const ids = EventIds.make()
      const id = yield* ids.next(1_700_000_000_123)
      assert.isTrue(Schema.is(EventId)(id), id)
      assert.strictEqual(msecsOf(id), 1_700_000_000_123)
    })
  )

  it.effect("strictly increase within one millisecond and across milliseconds", () =>
    Effect.gen(function* () {
      const ids = EventIds.make()
      const made: Array<string> = []
      for (let i = 0; i < 5_000; i++) made.push(yield* ids.next(1_000 + Math.floor(i / 1_000)))
      assertIncreasing(made)
      assert.strictEqual(new Set(made).size, made.length)
    })
  )

  it.effect("never go back when the clock does", () =>
    Effect.gen(function* () {
      const ids = EventIds.make()
      const first = yield* ids.next(5_000)
      const second = yield* ids.next(4_000)
      assert.isTrue(first < second)
      assert.strictEqual(msecsOf(second), 5_000)
    })
  )

  it.effect("sort after the seed id, even with a clock behind it", () =>
    Effect.gen(function* () {
      const seed = v7({ msecs: 9_000_000, seq: 0x1234_5678 })
      const id = yield* EventIds.make(seed).next(0)
      assert.isTrue(seed < id)
      assert.strictEqual(msecsOf(id), 9_000_000)
    })
  )

  it.effect("borrow the next millisecond when the counter overflows", () =>
    Effect.gen(function* () {
      const seed = v7({ msecs: 9_000_000, seq: 0xffff_ffff })
      const id = yield* EventIds.make(seed).next(9_000_000)
      assert.isTrue(seed < id)
      assert.strictEqual(msecsOf(id), 9_000_001)
      assert.isTrue(Schema.is(EventId)(id))
    })
  )
})
