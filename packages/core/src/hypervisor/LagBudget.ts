import * as Deferred from "effect/Deferred"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

/**
 * The bytes a bounded PubSub still holds for its slowest subscriber, kept under `maxBytes`: the publisher records
 * the size of each item it published, and an item counts until every subscriber has taken it (the PubSub's own
 * `size` says how many still do: the oldest ones go first). The publisher asks {@link LagBudget.fits} before each
 * item and {@link LagBudget.wait}s while it does not; subscribers call {@link LagBudget.wake} after each take and
 * when they leave, which costs nothing unless the publisher waits.
 */
export class LagBudget {
  // Sizes of the items published and maybe not yet taken by all, oldest first from `head`.
  private sizes: Array<number> = []
  private head = 0
  private total = 0
  private waiter: Deferred.Deferred<void> | undefined

  constructor(
    readonly maxBytes: number,
    /** How many of the published items the PubSub still holds (`PubSub.sizeUnsafe`). */
    private readonly held: () => number
  ) {}

  /** Records an item of `bytes` just published. */
  published(bytes: number): void {
    this.sizes.push(bytes)
    this.total += bytes
  }

  /**
   * Whether an item of `bytes` may be published now. One alone always may (a line longer than the budget must
   * not stop the follow), so the bound is the larger of `maxBytes` and one item.
   */
  fits(bytes: number): boolean {
    this.forgetTaken()
    return this.total === 0 || this.total + bytes <= this.maxBytes
  }

  /** Bytes held now for the slowest subscriber. */
  get bytes(): number {
    this.forgetTaken()
    return this.total
  }

  /** Completes after the next {@link LagBudget.wake}; the caller then asks {@link LagBudget.fits} again. */
  wait(): Effect.Effect<void> {
    const waiter = Deferred.makeUnsafe<void>()
    this.waiter = waiter
    return Deferred.await(waiter)
  }

  /** A subscriber took an item or left: a waiting publisher looks again. */
  wake(): void {
    const waiter = this.waiter
    if (waiter === undefined) return
    this.waiter = undefined
    Deferred.doneUnsafe(waiter, Exit.void)
  }

  // The items every subscriber has taken are the oldest ones beyond what the PubSub still holds. (An item published
  // while nobody subscribed never entered it; nothing older is held then either, so it is forgotten the same way.)
  private forgetTaken(): void {
    const held = this.held()
    while (this.sizes.length - this.head > held) this.total -= this.sizes[this.head++]!
    if (this.head > 1024 && this.head * 2 > this.sizes.length) {
      this.sizes = this.sizes.slice(this.head)
      this.head = 0
    }
  }
}
