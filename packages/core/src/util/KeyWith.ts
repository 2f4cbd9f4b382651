import * as Equal from "effect/Equal"
import * as Hash from "effect/Hash"

/**
 * A key of an `RcMap` that carries what its lookup needs. Keys are equal (and hash) by `id` alone, so every caller
 * asking for the same thing shares one entry, and the lookup reads the value of the key that opened the entry.
 * This replaces a side map of id → value filled before `RcMap.get`: such a map kept an entry for every stream that
 * was never started (a refused upgrade, a client gone), and a second caller could replace the value an entry
 * still being opened was about to read.
 */
export class KeyWith<A> implements Equal.Equal {
  constructor(
    readonly id: string,
    readonly value: A
  ) {}

  [Equal.symbol](that: unknown): boolean {
    return that instanceof KeyWith && that.id === this.id
  }

  [Hash.symbol](): number {
    return Hash.string(this.id)
  }
}
