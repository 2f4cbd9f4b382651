import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Stream } from "effect"
import type { NodeShell, SshTarget } from "../../src/hypervisor/NodeShell.js"
import { makeSharedFollows } from "../../src/hypervisor/SharedFollows.js"

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
})
