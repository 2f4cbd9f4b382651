/**
 * The newest lines of one follow, for a watcher that joins late: at most `maxLines` lines and `maxBytes` bytes
 * (UTF-8) of them, the oldest dropped first. Every line pushed gets the next number, whether it is kept or not, so a
 * watcher can tell the lines it was replayed from the ones it then receives live.
 */
export class ReplayLines {
  private entries: Array<{ readonly line: string; readonly bytes: number }> = []
  // Index of the oldest kept entry: dropping from the front is a step of this, not an array shift per line.
  private head = 0
  private total = 0
  private pushed = 0

  constructor(
    readonly maxLines: number,
    readonly maxBytes: number
  ) {}

  /**
   * Keeps `line` (dropping the oldest past either bound) and returns its number (1, 2, ...). `bytes` is its UTF-8
   * size, when the caller has it already.
   */
  push(line: string, bytes: number = Buffer.byteLength(line, "utf8")): number {
    this.pushed++
    this.entries.push({ line, bytes })
    this.total += bytes
    while (this.lines > 0 && (this.lines > this.maxLines || this.total > this.maxBytes)) {
      this.total -= this.entries[this.head]!.bytes
      this.head++
    }
    // Compact once the dropped prefix dominates: amortised O(1) per line, and the dropped lines are released.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
    return this.pushed
  }

  /** Lines kept now. */
  get lines(): number {
    return this.entries.length - this.head
  }

  /** Bytes (UTF-8) of the lines kept now. */
  get bytes(): number {
    return this.total
  }

  /** The lines kept, oldest first, and the number of the newest line pushed so far (0 before any). */
  snapshot(): { readonly lines: ReadonlyArray<string>; readonly through: number } {
    return { lines: this.entries.slice(this.head).map((entry) => entry.line), through: this.pushed }
  }
}
