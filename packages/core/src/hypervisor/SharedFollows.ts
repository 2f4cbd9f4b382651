import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as RcMap from "effect/RcMap"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { KeyWith } from "../util/KeyWith.js"
import type { NodeShell, SshError, SshTarget } from "./NodeShell.js"

/** What a shared follow runs: the command on its node, and how many of its last lines a late watcher gets. */
interface Command {
  readonly target: SshTarget
  readonly argv: ReadonlyArray<string>
  readonly replay: number
}

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
    const follows = yield* RcMap.make({
      lookup: (key: KeyWith<Command>) =>
        // One line per chunk: the replay buffer counts chunks, and a late watcher must get exactly the last lines.
        Stream.share(Stream.rechunk(shell.lines(key.value.target, key.value.argv), 1), {
          capacity: bufferLines,
          strategy: "suspend",
          replay: key.value.replay
        }),
      idleTimeToLive: Duration.zero
    })
    return (target, argv, initialLines) => {
      const id = JSON.stringify([target.node, target.host, target.port, target.user, target.hostKey, argv])
      return Stream.unwrap(RcMap.get(follows, new KeyWith(id, { target, argv, replay: initialLines })))
    }
  })
