import { randomFillSync } from "node:crypto"

/**
 * Bytes from the crypto RNG, drawn from a 4 KiB buffer refilled when used up. Each small `randomBytes` or
 * `getRandomValues` call costs 20–30 µs on Node 20 (bench/auth-requests.ts: a tenth of an AuthApprove); one refill
 * costs about the same. The bytes are the same CSPRNG's and each is handed out once.
 */
const pool = Buffer.alloc(4096)
let offset = pool.length

/** `size` (at most 4096) fresh random bytes, as a new buffer the caller owns. */
export const randomBytesPooled = (size: number): Buffer => {
  if (size > pool.length) throw new RangeError(`at most ${pool.length} bytes at a time`)
  if (offset + size > pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + size))
  // Used bytes are overwritten so a later heap dump cannot recover ids handed out before.
  pool.fill(0, offset, offset + size)
  offset += size
  return bytes
}
