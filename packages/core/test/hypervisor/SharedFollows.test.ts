import { assert, describe, it } from "@effect/vitest"
import { type Cause, Deferred, Effect, Fiber, Queue, Redacted, Stream } from "effect"
import type { NodeShell, SshError, SshTarget } from "../../src/hypervisor/NodeShell.js"
import { ReplayLines } from "../../src/hypervisor/ReplayLines.js"
import { makeSharedFollows, maxLagBytes, maxReplayBytes } from "../../src/hypervisor/SharedFollows.js"

const target: SshTarget = {
  node: "pve1",
  host: "127.0.0.1",
  port: 22,
  user: "root",
  privateKey: Redacted.make("not used"),
  hostKey: "SHA256:not-used"
}

// A node whose every command prints two lines and exits; it records what it was asked to run.
const fakeShell = (ran: Array<string>) =>
  ({
    lines: (_target: SshTarget, argv: ReadonlyArray<string>) =>
      Stream.suspend(() => {
        ran.push(argv.join(" "))
        return Stream.make("first", "second")
      })
  }) as unknown as NodeShell["Service"]

describe("shared follows", () => {
  it.effect("a watcher asked for before an earlier one of the same command ended still runs that command", () =>
    Effect.gen(function* () {
      const ran: Array<string> = []
      const follow = yield* makeSharedFollows(fakeShell(ran))
      // Both are asked for before either runs (two upgrades in flight); the first ends before the second starts.
      const early = follow(target, ["tail", "-F", "/var/log/syslog"], 2)
      const late = follow(target, ["tail", "-F", "/var/log/syslog"], 2)
      assert.deepStrictEqual(yield* Stream.runCollect(early), ["first", "second"])
      assert.deepStrictEqual(yield* Stream.runCollect(late), ["first", "second"])
      assert.deepStrictEqual(ran, ["tail -F /var/log/syslog", "tail -F /var/log/syslog"])
    }).pipe(Effect.scoped)
  )

  it.effect("watchers of different commands run their own", () =>
    Effect.gen(function* () {
      const ran: Array<string> = []
      const follow = yield* makeSharedFollows(fakeShell(ran))
      const journal = follow(target, ["journalctl", "-f"], 2)
      const tail = follow(target, ["tail", "-F", "/var/log/messages"], 2)
      yield* Stream.runDrain(tail)
      yield* Stream.runDrain(journal)
      assert.deepStrictEqual(ran, ["tail -F /var/log/messages", "journalctl -f"])
    }).pipe(Effect.scoped)
  )

  it.effect("a late watcher gets the last lines, none twice and none missed, then follows with the others", () =>
    Effect.gen(function* () {
      const { shell, queue, released } = yield* queueShell
      const follow = yield* makeSharedFollows(shell)
      const argv = ["tail", "-n", "3", "-F", "/var/log/syslog"]
      const first = yield* watch(follow(target, argv, 3), 10)
      yield* Queue.offerAll(queue, ["a", "b", "c", "d", "e"])
      yield* Deferred.await(first.seen(5))
      const late = yield* watch(follow(target, argv, 3), 5)
      yield* Deferred.await(late.seen(3))
      yield* Queue.offerAll(queue, ["f", "g"])
      assert.deepStrictEqual(yield* Fiber.join(late.fiber), ["c", "d", "e", "f", "g"])
      yield* Queue.offerAll(queue, ["h", "i", "j"])
      assert.deepStrictEqual(yield* Fiber.join(first.fiber), ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"])
      // Both watchers gone: the upstream (the SSH channel) is released.
      yield* Deferred.await(released)
    }).pipe(Effect.scoped)
  )

  it.effect("the replay is bounded by bytes as well as lines: 64 KiB lines, 4 MiB replayed, the newest kept", () =>
    Effect.gen(function* () {
      const { shell, queue } = yield* queueShell
      const follow = yield* makeSharedFollows(shell)
      const argv = ["tail", "-n", "1000", "-F", "/var/log/big"]
      // What NodeShellLive delivers for a file without newlines: 64 KiB pieces. 100 of them, 6.25 MiB.
      const piece = (i: number) => `${String(i).padStart(3, "0")}${"x".repeat(64 * 1024 - 3)}`
      const pieces = Array.from({ length: 100 }, (_, i) => piece(i))
      // A request for 1000 lines of each of 16 files replays up to 16,000 lines: the line count allows all 100.
      // (It stays: a follow whose last watcher left is gone, replay and all.)
      const first = yield* watch(follow(target, argv, 16_000), 1000)
      yield* Queue.offerAll(queue, pieces)
      yield* Deferred.await(first.seen(100))
      const kept = maxReplayBytes / (64 * 1024)
      assert.strictEqual(kept, 64)
      const late = yield* watch(follow(target, argv, 16_000), kept + 1)
      yield* Deferred.await(late.seen(1))
      yield* Queue.offer(queue, "live")
      const got = yield* Fiber.join(late.fiber)
      // Exactly the newest 64 pieces (4 MiB), oldest dropped first, then the live line: not 100 replayed.
      assert.deepStrictEqual(
        got.map((line) => line.slice(0, 4)),
        [...pieces.slice(100 - kept).map((line) => line.slice(0, 4)), "live"]
      )
      assert.isTrue(got.slice(0, kept).every((line, i) => line === pieces[100 - kept + i]))
      yield* Fiber.interrupt(first.fiber)
    }).pipe(Effect.scoped)
  )
})

describe("shared follows: a watcher that stops reading", () => {
  it.effect("holds the command back by bytes: of 64 KiB lines the follow takes at most ~4 MiB, not 4096 lines", () =>
    Effect.gen(function* () {
      const { shell, pulled } = endlessShell(numberedLine)
      const follow = yield* makeSharedFollows(shell)
      const argv = ["tail", "-n", "0", "-F", "/var/log/binary"]
      // Takes its first line, then stops reading (a client whose socket stopped draining) until `resume`.
      const resume = yield* Deferred.make<void>()
      const got: Array<string> = []
      const wanted = (3 * maxLagBytes) / (64 * 1024)
      const stalled = yield* Effect.forkChild(
        follow(target, argv, 0).pipe(
          Stream.take(wanted),
          Stream.runForEach((line) =>
            Effect.suspend(() => {
              got.push(line)
              return got.length === 1 ? Deferred.await(resume) : Effect.void
            })
          )
        )
      )
      yield* settled(pulled)
      // What is held for it is bounded by bytes; a line in its hands and one on its way come on top.
      assert.isAtMost(pulled(), maxLagBytes + 3 * 64 * 1024)
      assert.isAtLeast(pulled(), maxLagBytes / 2)
      // Reading again, it gets everything, in order: each line it takes lets the command go on.
      yield* Deferred.succeed(resume, undefined)
      yield* Fiber.join(stalled)
      assert.strictEqual(got.length, wanted)
      assert.deepStrictEqual(
        got.map((line) => Number(line.slice(0, 8))),
        Array.from({ length: wanted }, (_, i) => i)
      )
    }).pipe(Effect.scoped)
  )

  it.effect("paces the others too, until it leaves; then they go on, nothing lost or repeated", () =>
    Effect.gen(function* () {
      const { shell, pulled } = endlessShell(numberedLine)
      const follow = yield* makeSharedFollows(shell)
      const argv = ["tail", "-n", "0", "-F", "/var/log/binary"]
      const stalled = yield* Effect.forkChild(Stream.runForEach(follow(target, argv, 0), () => Effect.never))
      yield* settled(pulled)
      const wanted = (2 * maxLagBytes) / (64 * 1024)
      const reader = yield* watch(follow(target, argv, 0), wanted)
      yield* settled(pulled)
      // The command waits for the stalled watcher, so the reader waits too (the WebSocket layer drops a client that
      // stays behind; here it leaves by itself).
      assert.isUndefined(reader.fiber.pollUnsafe())
      yield* Fiber.interrupt(stalled)
      const got = yield* Fiber.join(reader.fiber)
      const numbers = got.map((l) => Number(l.slice(0, 8)))
      assert.strictEqual(numbers.length, wanted)
      assert.isTrue(
        numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1),
        "consecutive lines"
      )
    }).pipe(Effect.scoped)
  )
})

describe("replay lines", () => {
  it("keeps at most maxLines lines and maxBytes bytes (UTF-8), dropping the oldest first", () => {
    const replay = new ReplayLines(16_000, maxReplayBytes)
    const big = "y".repeat(64 * 1024)
    for (let i = 0; i < 16_000; i++) replay.push(big)
    // 16,000 × 64 KiB would be 1 GiB; the bytes bound keeps 64 of them.
    assert.strictEqual(replay.lines, 64)
    assert.strictEqual(replay.bytes, maxReplayBytes)
    assert.strictEqual(replay.snapshot().through, 16_000)
    assert.strictEqual(replay.snapshot().lines.length, 64)

    const counted = new ReplayLines(3, 10)
    for (const line of ["é", "ab", "cd"]) counted.push(line)
    assert.strictEqual(counted.bytes, 6, "é is two bytes")
    counted.push("efghi")
    assert.deepStrictEqual(counted.snapshot(), { lines: ["ab", "cd", "efghi"], through: 4 })
    counted.push("jklmnop")
    // 4 lines, 2 + 2 + 5 + 7 = 16 bytes: the oldest go until both bounds hold (7 bytes).
    assert.deepStrictEqual(counted.snapshot(), { lines: ["jklmnop"], through: 5 })
    assert.strictEqual(counted.bytes, 7)
  })
})

// A node whose command prints what the test puts in a queue, and says when its stream is released.
const queueShell = Effect.gen(function* () {
  const queue = yield* Queue.unbounded<string, SshError | Cause.Done>()
  const released = yield* Deferred.make<void>()
  const shell = {
    lines: () => Stream.fromQueue(queue).pipe(Stream.ensuring(Deferred.succeed(released, undefined)))
  } as unknown as NodeShell["Service"]
  return { shell, queue, released }
})

// A 64 KiB line (the longest NodeShellLive delivers) starting with its number.
const numberedLine = (n: number) => `${String(n).padStart(8, "0")}${"y".repeat(64 * 1024 - 8)}`

// A node whose command prints `lineAt(0)`, `lineAt(1)`, ... as fast as they are read; `pulled` says how many bytes
// the follow has taken from it so far.
const endlessShell = (lineAt: (n: number) => string) => {
  let bytes = 0
  let n = 0
  const shell = {
    lines: () =>
      Stream.fromPull(
        Effect.succeed(
          Effect.sync(() => {
            const next = lineAt(n++)
            bytes += next.length
            return [next] as const
          })
        )
      )
  } as unknown as NodeShell["Service"]
  return { shell, pulled: () => bytes }
}

// Lets every other fiber run until the follow stops taking lines from its command (the count holds still for a while).
const settled = (pulled: () => number) =>
  Effect.gen(function* () {
    let last = -1
    let still = 0
    for (let i = 0; i < 200_000 && still < 100; i++) {
      yield* Effect.yieldNow
      const now = pulled()
      still = now === last ? still + 1 : 0
      last = now
    }
  })

// Runs a watcher until it has `count` lines; `seen(n)` completes once it has received n of them.
const watch = (stream: Stream.Stream<string, SshError>, count: number) =>
  Effect.gen(function* () {
    const seen = new Map<number, Deferred.Deferred<void>>()
    const at = (n: number) => {
      let deferred = seen.get(n)
      if (deferred === undefined) {
        deferred = Deferred.makeUnsafe<void>()
        seen.set(n, deferred)
      }
      return deferred
    }
    let received = 0
    const fiber = yield* Effect.forkChild(
      stream.pipe(
        Stream.take(count),
        Stream.tap(() => Deferred.succeed(at(++received), undefined)),
        Stream.runCollect
      )
    )
    return { fiber, seen: at }
  })
