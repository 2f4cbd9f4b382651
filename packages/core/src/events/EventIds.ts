import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import { v7 } from "uuid"
import { randomBytesPooled } from "../util/RandomPool.js"

/**
 * Strictly increasing UUIDv7 ids. The caller passes the time (from Effect's `Clock`, so `TestClock` drives it);
 * the 32-bit counter after it is re-seeded at random each new millisecond and incremented within one, as
 * RFC 9562 §6.2 method 1 describes. Never thread-safe on its own: callers serialise `next`.
 */
export interface EventIds {
  /** The next id for time `now` (ms), greater than every id this generator (or its `after` seed) has made. */
  readonly next: (now: number) => Effect.Effect<string>
}

/**
 * A generator whose ids sort after `after` (the newest stored id), so a clock that went backwards across a
 * restart, or a `TestClock` starting at 0, can never produce ids that sort before the existing history.
 */
export const make = (after?: string): EventIds => {
  const state = after === undefined ? { msecs: Number.NEGATIVE_INFINITY, seq: 0 } : parse(after)
  const next = Effect.fnUntraced(function* (now: number) {
    if (now > state.msecs) {
      state.msecs = now
      // 31 bits: at least 2^31 ids fit in the millisecond before the counter overflows.
      state.seq = yield* Random.nextIntBetween(0, 0x7fffffff)
    } else {
      state.seq = (state.seq + 1) >>> 0
      // Overflow borrows the next millisecond, like the uuid package's own monotonic mode.
      if (state.seq === 0) state.msecs++
    }
    return v7({ msecs: state.msecs, seq: state.seq, random: randomBytesPooled(16) })
  })
  return { next }
}

/** The time and counter of a UUIDv7 written by this generator (bit layout of uuid's `v7({ msecs, seq })`). */
const parse = (id: string) => {
  const hex = id.replaceAll("-", "")
  const byte = (i: number) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  const msecs = Number.parseInt(hex.slice(0, 12), 16)
  const seq =
    (((byte(6) & 0x0f) << 28) | (byte(7) << 20) | ((byte(8) & 0x3f) << 14) | (byte(9) << 6) | (byte(10) >>> 2)) >>> 0
  return { msecs, seq }
}
