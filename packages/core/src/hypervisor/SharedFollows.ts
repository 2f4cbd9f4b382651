import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as RcMap from "effect/RcMap"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { NodeShell, SshError, SshTarget } from "./NodeShell.js"

// Lines a follower may be ahead of the slowest one before the command waits for it (SSH flow control then holds
// the remote command back); the WebSocket layer drops a client that stays behind.
const bufferLines = 4096

/**
 * Follows shared by command: every watcher of the same command on the same node (same `journalctl -n 100 -u x`,
 * same `tail -F file`) reads one remote command over one SSH channel. A watcher that joins later first gets the
 * last `initialLines` lines (what its own command would have printed first), then follows with the others. The
 * last watcher leaving closes the channel, which ends the remote command.
 */
export const makeSharedFollows = (
  shell: NodeShell["Service"]
): Effect.Effect<
  (target: SshTarget, argv: ReadonlyArray<string>, initialLines: number) => Stream.Stream<string, SshError>,
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const commands = new Map<
      string,
      { readonly target: SshTarget; readonly argv: ReadonlyArray<string>; readonly replay: number }
    >()
    const follows = yield* RcMap.make({
      lookup: (key: string) =>
        Effect.gen(function* () {
          const command = commands.get(key)!
          // Forget the command with its follow, unless a newer watcher has already registered it again.
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              if (commands.get(key) === command) commands.delete(key)
            })
          )
          // One line per chunk: the replay buffer counts chunks, and a late watcher must get exactly the last lines.
          return yield* Stream.share(Stream.rechunk(shell.lines(command.target, command.argv), 1), {
            capacity: bufferLines,
            strategy: "suspend",
            replay: command.replay
          })
        }),
      idleTimeToLive: Duration.zero
    })
    return (target, argv, initialLines) => {
      const key = JSON.stringify([target.node, target.host, target.port, target.user, target.hostKey, argv])
      commands.set(key, { target, argv, replay: initialLines })
      return Stream.unwrap(RcMap.get(follows, key))
    }
  })
