import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"
import type * as Pull from "effect/Pull"
import * as RcMap from "effect/RcMap"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Take from "effect/Take"
import { KeyWith } from "../util/KeyWith.js"
import { LagBudget } from "./LagBudget.js"
import type { NodeShell, SshError, SshTarget } from "./NodeShell.js"
import { ReplayLines } from "./ReplayLines.js"

/** What a shared follow runs: the command on its node, and how many of its last lines a late watcher gets. */
interface Command {
  readonly target: SshTarget
  readonly argv: ReadonlyArray<string>
  readonly replay: number
}

/** A line with its number in the follow (see {@link ReplayLines}). */
interface Numbered {
  readonly seq: number
  readonly line: string
}

/** One running follow: its fan-out and its byte bound, its replay, how it ended (once it has) and how to start it. */
interface Follow {
  readonly pubsub: PubSub.PubSub<Take.Take<Numbered, SshError>>
  readonly budget: LagBudget
  readonly replay: ReplayLines
  readonly ended: () => Exit.Exit<void, SshError> | undefined
  readonly start: Effect.Effect<void>
}

// Groups of lines a follower may be ahead of the slowest one before the command waits for it (SSH flow control then
// holds the remote command back); the WebSocket layer drops a client that stays behind. A slot is released as soon
// as every watcher has taken its group (effect's bounded PubSub clears it), so this bounds groups not yet read by
// the slowest watcher, not groups already read. `maxLagBytes` bounds the same groups by size.
const bufferGroups = 4096

// Lines go out in groups of at most this many bytes (a longer line alone): one PubSub item per group rather than per
// line is what keeps a busy follow cheap, and groups this small let the byte bound pace a follow of large lines.
const groupBytes = 64 * 1024

/**
 * Bytes (UTF-8) of lines a follow holds for its slowest watcher before the command waits. Lines are at most 64 KiB
 * (NodeShellLive cuts longer ones), so the group count alone would let a watcher that stopped reading hold 4096 of
 * them, 256 MiB. 4 MiB is over 40,000 ordinary log lines: a watcher that keeps up never meets it.
 */
export const maxLagBytes = 4 * 1024 * 1024

/**
 * Bytes (UTF-8) of replay a follow keeps for late watchers, besides its line count (`limit` × files, up to 16,000).
 * A line may be up to 64 KiB (NodeShellLive cuts longer ones), so the count alone lets one follow of a binary file
 * hold a gigabyte. 4 MiB holds the full replay of ordinary logs at the largest request (1000 lines × 16 files of
 * ~250-byte lines) and caps the worst case at 4 MiB per follow; the oldest lines go first, as `tail` would drop
 * them. A late watcher then gets fewer than `limit` lines, only when they are that large.
 */
export const maxReplayBytes = 4 * 1024 * 1024

/** Tuning of {@link makeSharedFollows}, for tests. */
export interface SharedFollowsOptions {
  /** Replay bound in bytes (default {@link maxReplayBytes}). */
  readonly maxReplayBytes?: number
  /** Bound in bytes of what a follow holds for its slowest watcher (default {@link maxLagBytes}). */
  readonly maxLagBytes?: number
}

// The pull of one watcher's live lines: a line it was already replayed (numbered `through` or lower) is skipped.
// Each take may be what the command waited for (see LagBudget).
const livePull = (
  subscription: PubSub.Subscription<Take.Take<Numbered, SshError>>,
  budget: LagBudget,
  through: number
): Pull.Pull<Arr.NonEmptyReadonlyArray<string>, SshError> => {
  const pull: Pull.Pull<Arr.NonEmptyReadonlyArray<string>, SshError> = Effect.flatMap(
    PubSub.take(subscription),
    (take): Pull.Pull<Arr.NonEmptyReadonlyArray<string>, SshError> => {
      budget.wake()
      if (Exit.isExit(take)) return Exit.isSuccess(take) ? Cause.done() : Effect.failCause(take.cause)
      const fresh = take.filter((numbered) => numbered.seq > through).map((numbered) => numbered.line)
      return Arr.isReadonlyArrayNonEmpty(fresh) ? Effect.succeed(fresh) : pull
    }
  )
  return pull
}

/**
 * Follows shared by command: every watcher of the same command on the same node (same `journalctl -n 100 -u x`,
 * same `tail -F file`) reads one remote command over one SSH channel. A watcher that joins later first gets the
 * last `initialLines` lines (what its own command would have printed first), at most `maxReplayBytes` of them,
 * then follows with the others. A watcher that stops reading holds the command back (and the others with it) once
 * `maxLagBytes` wait for it. The last watcher leaving closes the channel, which ends the remote command.
 */
export const makeSharedFollows = (
  shell: NodeShell["Service"],
  options: SharedFollowsOptions = {}
): Effect.Effect<
  (target: SshTarget, argv: ReadonlyArray<string>, initialLines: number) => Stream.Stream<string, SshError>,
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const replayBytes = options.maxReplayBytes ?? maxReplayBytes
    const lagBytes = options.maxLagBytes ?? maxLagBytes
    const follows = yield* RcMap.make({
      lookup: (key: KeyWith<Command>) =>
        Effect.gen(function* () {
          const scope = yield* Effect.scope
          const pubsub = yield* PubSub.bounded<Take.Take<Numbered, SshError>>(bufferGroups)
          yield* Effect.addFinalizer(() => PubSub.shutdown(pubsub))
          const budget = new LagBudget(lagBytes, () => PubSub.sizeUnsafe(pubsub))
          const replay = new ReplayLines(key.value.replay, replayBytes)
          let ended: Exit.Exit<void, SshError> | undefined
          let started = false
          // Each line goes into the replay before it is published, and the end is recorded before it is published:
          // a watcher that subscribes and then reads both misses nothing (see `follow` below). A group goes out once
          // the slowest watcher has room for it.
          const publish = Effect.fnUntraced(function* (lines: Arr.NonEmptyReadonlyArray<string>) {
            for (let start = 0; start < lines.length; ) {
              const sizes: Array<number> = []
              let bytes = 0
              for (let i = start; i < lines.length; i++) {
                const size = Buffer.byteLength(lines[i]!, "utf8")
                if (i > start && bytes + size > groupBytes) break
                sizes.push(size)
                bytes += size
              }
              while (!budget.fits(bytes)) yield* budget.wait()
              // The first line always goes, however long: a group is never empty.
              const group: Arr.NonEmptyArray<Numbered> = [
                { seq: replay.push(lines[start]!, sizes[0]!), line: lines[start]! }
              ]
              for (let i = 1; i < sizes.length; i++) {
                group.push({ seq: replay.push(lines[start + i]!, sizes[i]!), line: lines[start + i]! })
              }
              yield* PubSub.publish(pubsub, group)
              budget.published(bytes)
              start += sizes.length
            }
          })
          const upstream = shell.lines(key.value.target, key.value.argv).pipe(
            Stream.runForEachArray(publish),
            Effect.exit,
            Effect.flatMap((exit) => {
              ended = exit
              return PubSub.publish(pubsub, exit)
            })
          )
          return {
            pubsub,
            budget,
            replay,
            ended: () => ended,
            // Started by the first watcher once it has subscribed (in the entry's scope: the last watcher leaving
            // interrupts it, which closes the channel).
            start: Effect.suspend(() => {
              if (started) return Effect.void
              started = true
              return Effect.asVoid(Effect.forkIn(upstream, scope))
            })
          } satisfies Follow
        }),
      idleTimeToLive: Duration.zero
    })
    return (target, argv, initialLines) => {
      const id = JSON.stringify([target.node, target.host, target.port, target.user, target.hostKey, argv])
      return Stream.unwrap(
        Effect.gen(function* () {
          const follow = yield* RcMap.get(follows, new KeyWith(id, { target, argv, replay: initialLines }))
          // Runs after the unsubscribe below: a command waiting for this watcher looks again once it is gone.
          yield* Effect.addFinalizer(() => Effect.sync(() => follow.budget.wake()))
          // Subscribed first, then the replay read: a line published from now on reaches the subscription, a line
          // pushed before is in the replay (or was too old to keep), and one in both is skipped live by its number.
          const subscription = yield* PubSub.subscribe(follow.pubsub)
          const { lines, through } = follow.replay.snapshot()
          const ended = follow.ended()
          yield* follow.start
          const replayed = Stream.fromArray(lines)
          return ended !== undefined
            ? Stream.concat(replayed, Stream.fromEffectDrain(ended))
            : Stream.concat(replayed, Stream.fromPull(Effect.succeed(livePull(subscription, follow.budget, through))))
        })
      )
    }
  })
