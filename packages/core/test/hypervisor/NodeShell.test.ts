import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Redacted, Stream } from "effect"
import { TestClock } from "effect/testing"
import ssh2 from "ssh2"
import { freePort } from "../../../../test/support/FreePort.js"
import { parseableKeyPair } from "../../../../test/support/SshKeys.js"
import { commandLine } from "../../src/hypervisor/ShellWords.js"
import {
  NodeShell,
  NodeShellLive,
  SshFailed,
  SshHostKeyMismatch,
  type SshTarget,
  SshUnreachable
} from "../../src/index.js"
import { type FakeExec, startFakeSshNode } from "./FakeSshNode.js"

const shell = NodeShellLive.layerWith({ readyTimeout: "5 seconds" })

/** Polls `check` on the wall clock (the fake node's sockets are real I/O) until it holds, for at most 5 s. */
const eventuallyEffect = <R>(check: Effect.Effect<boolean, never, R>, what: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 500; i++) {
      if (yield* check) return
      yield* Effect.sleep("10 millis")
    }
    assert.fail(`timed out waiting for: ${what}`)
  })
const eventually = (check: () => boolean, what: string) => eventuallyEffect(Effect.sync(check), what)

/** A command that writes `line <n>` every 10 ms until the client closes its channel. */
const follow = (exec: FakeExec) => {
  let n = 0
  const timer = setInterval(() => {
    if (exec.closed()) return clearInterval(timer)
    exec.write(`line ${n++}\n`)
  }, 10)
}

const runOn = (target: SshTarget, argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    return yield* (yield* NodeShell).run(target, argv)
  })

const failureOf = <A, E>(effect: Effect.Effect<A, E, NodeShell>) => Effect.flip(effect).pipe(Effect.provide(shell))

describe("NodeShell over ssh2 (in-process fake node)", () => {
  it.live("run: collects stdout and stderr; a non-zero exit is a result, not an error", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(
        (c) => c.startsWith("'status'"),
        (exec) => {
          exec.write("out 1\nout 2\n")
          exec.writeStderr("warn\n")
          exec.exit(3)
        }
      )
      const result = yield* (yield* NodeShell).run(node.target(), ["status"])
      assert.deepStrictEqual(result, { exitCode: 3, stdout: "out 1\nout 2\n", stderr: "warn\n" })
      const stats = yield* (yield* NodeShell).stats
      assert.deepStrictEqual(stats, { connectionsOpened: 1, connectionsOpen: 1, channelsOpen: 0 })
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("the node receives exactly the quoted command line", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(
        () => true,
        (exec) => exec.exit(0)
      )
      const argv = ["journalctl", "-u", "a b", "it's", "$(reboot)", "x;y"]
      yield* (yield* NodeShell).run(node.target(), argv)
      assert.deepStrictEqual(node.commands, [`'journalctl' '-u' 'a b' 'it'\\''s' '$(reboot)' 'x;y'`])
      assert.strictEqual(node.commands[0], commandLine(argv))
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("lines: splits on \\n, strips \\r, keeps a final line without newline, ends on exit 0", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(
        () => true,
        (exec) => {
          exec.write("a\nb\r\n\nc")
          exec.exit(0)
        }
      )
      const lines = yield* Stream.runCollect((yield* NodeShell).lines(node.target(), ["cat"]))
      assert.deepStrictEqual(lines, ["a", "b", "", "c"])
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("lines: a line over 64 KiB (a binary file followed by mistake) comes in 64 KiB pieces, nothing lost", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      const long = "x".repeat(3 * 65_536 + 10)
      node.on(
        () => true,
        (exec) => {
          exec.write(`${long}\nshort\n`)
          exec.exit(0)
        }
      )
      const lines = yield* Stream.runCollect((yield* NodeShell).lines(node.target(), ["cat"]))
      assert.deepStrictEqual(
        lines.map((line) => line.length),
        [65_536, 65_536, 65_536, 10, 5]
      )
      assert.strictEqual(lines.slice(0, 4).join(""), long)
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("lines: a UTF-8 character split between two chunks comes out whole", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      const bytes = Buffer.from("grüße ✓\n")
      node.on(
        () => true,
        (exec) => {
          // Split inside "ü" (2 bytes) and inside "✓" (3 bytes), with pauses so they arrive as separate chunks.
          exec.write(bytes.subarray(0, 3))
          setTimeout(() => exec.write(bytes.subarray(3, 9)), 30)
          setTimeout(() => exec.write(bytes.subarray(9)), 60)
          setTimeout(() => exec.exit(0), 90)
        }
      )
      const lines = yield* Stream.runCollect((yield* NodeShell).lines(node.target(), ["cat"]))
      assert.deepStrictEqual(lines, ["grüße ✓"])
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("lines: a non-zero exit fails with the status and the first line of stderr, after the output", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(
        () => true,
        (exec) => {
          exec.write("partial\n")
          exec.writeStderr("tail: cannot open 'x'\nmore\n")
          exec.exit(2)
        }
      )
      const seen: Array<string> = []
      const error = yield* Effect.flip(
        Stream.runForEach((yield* NodeShell).lines(node.target(), ["tail", "x"]), (line) =>
          Effect.sync(() => seen.push(line))
        )
      )
      assert.deepStrictEqual(seen, ["partial"])
      assert.instanceOf(error, SshFailed)
      assert.strictEqual((error as SshFailed).detail, "command exited with status 2: tail: cannot open 'x'")
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("N concurrent streams share one connection with N channels; interrupting them closes every channel", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(() => true, follow)
      const service = yield* NodeShell
      const n = 8
      const started = yield* Effect.forEach(Array.from({ length: n }), () => Deferred.make<void>())
      const fibers = yield* Effect.forEach(started, (first, i) =>
        Effect.forkChild(
          Stream.runForEach(service.lines(node.target(), ["tail", "-F", `/var/log/f${i}`]), () =>
            Deferred.succeed(first, undefined)
          )
        )
      )
      yield* Effect.forEach(started, Deferred.await)
      assert.strictEqual(node.signedIn(), 1)
      assert.strictEqual(node.openChannels(), n)
      assert.deepStrictEqual(yield* service.stats, { connectionsOpened: 1, connectionsOpen: 1, channelsOpen: n })
      yield* Effect.forEach(fibers, Fiber.interrupt)
      // Proven on the server side: the client closed each channel while its command was still running.
      yield* eventually(() => node.closedByClient() === n && node.openChannels() === 0, "all channels closed")
      yield* eventuallyEffect(
        Effect.map(service.stats, (s) => s.channelsOpen === 0),
        "the client counted every channel closed"
      )
      assert.strictEqual(node.signedIn(), 1)
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("past a connection's channels a second connection opens; past the node's connections a command fails", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(() => true, follow)
      node.on(
        (command) => command === commandLine(["true"]),
        (exec) => exec.exit(0)
      )
      const service = yield* NodeShell
      const started = yield* Effect.forEach(Array.from({ length: 4 }), () => Deferred.make<void>())
      const fibers = yield* Effect.forEach(started, (first, i) =>
        Effect.forkChild(
          Stream.runForEach(service.lines(node.target(), ["tail", "-F", `/var/log/f${i}`]), () =>
            Deferred.succeed(first, undefined)
          )
        )
      )
      yield* Effect.forEach(started, Deferred.await)
      assert.deepStrictEqual(yield* service.stats, { connectionsOpened: 2, connectionsOpen: 2, channelsOpen: 4 })
      const refused = yield* Effect.flip(service.run(node.target(), ["true"]))
      assert.instanceOf(refused, SshUnreachable)
      assert.match(refused.message, /4 commands already run on it \(2 connections of 2 channels/)
      assert.strictEqual(node.signedIn(), 2, "no third connection was opened")
      // One ends: its place is free again.
      yield* Fiber.interrupt(fibers[0]!)
      yield* eventuallyEffect(
        Effect.map(service.stats, (s) => s.channelsOpen === 3),
        "the client counted the channel closed"
      )
      assert.strictEqual((yield* service.run(node.target(), ["true"])).exitCode, 0)
    }).pipe(
      Effect.provide(
        NodeShellLive.layerWith({ readyTimeout: "5 seconds", maxChannelsPerConnection: 2, maxConnectionsPerNode: 2 })
      ),
      Effect.scoped
    )
  )

  it.live("a stream the consumer stops early (take) closes its channel", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(() => true, follow)
      const lines = yield* Stream.runCollect(
        (yield* NodeShell).lines(node.target(), ["tail", "-F", "x"]).pipe(Stream.take(3))
      )
      assert.deepStrictEqual(lines, ["line 0", "line 1", "line 2"])
      yield* eventually(() => node.closedByClient() === 1 && node.openChannels() === 0, "the channel closed")
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("a slow consumer holds the remote command back (bounded memory, nothing lost)", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      const line = `${"x".repeat(1023)}\n`
      const total = 32 * 1024 // lines of 1 KiB: 32 MiB in all
      const sent = { lines: 0, waiting: false }
      node.on(
        () => true,
        (exec) => {
          // Writes as fast as the channel takes it, honouring ssh2's flow control (the SSH window).
          const channel = exec.channel
          const pump = () => {
            sent.waiting = false
            while (sent.lines < total) {
              sent.lines += 64
              if (!channel.write(line.repeat(64))) {
                sent.waiting = true
                return channel.once("drain", pump)
              }
            }
            exec.exit(0)
          }
          pump()
        }
      )
      const service = yield* NodeShell
      const gate = yield* Deferred.make<void>()
      const counted = yield* Effect.forkChild(
        Stream.runCount(service.lines(node.target(), ["cat", "big"]).pipe(Stream.tap(() => Deferred.await(gate))))
      )
      // Polled until the sender stops (waiting for the channel to drain, or done) and stays so for 300 ms: on a
      // busy machine the pipeline takes longer to fill, so no fixed wait. 20 s at most.
      const stalled = Effect.gen(function* () {
        for (;;) {
          const before = sent.lines
          yield* Effect.sleep("300 millis")
          if (sent.lines === before && (sent.waiting || sent.lines >= total)) return sent.lines
        }
      })
      const whileStalled = yield* stalled.pipe(Effect.timeout("20 seconds"))
      // The sender is stuck well short of the end: the client stopped taking data.
      // Measured: ~6 MiB in flight (the SSH window, ssh2's buffers and the line queue); without the pause, all 32.
      assert.isBelow(whileStalled, total / 2)
      assert.isTrue(sent.waiting)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(counted), total)
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("a connection dropped mid-stream fails the stream with SshFailed; the next call reconnects", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on((c) => c.includes("follow"), follow)
      node.on(
        (c) => c.includes("true"),
        (exec) => exec.exit(0)
      )
      const service = yield* NodeShell
      const error = yield* Effect.flip(
        Stream.runForEach(service.lines(node.target(), ["follow"]), (line) =>
          line === "line 2" ? Effect.sync(node.dropConnections) : Effect.void
        )
      )
      assert.instanceOf(error, SshFailed)
      assert.include((error as SshFailed).detail, "connection lost")
      yield* eventually(() => node.signedIn() === 1, "")
      const result = yield* service.run(node.target(), ["true"])
      assert.strictEqual(result.exitCode, 0)
      assert.strictEqual(node.signedIn(), 2)
      assert.strictEqual((yield* service.stats).connectionsOpened, 2)
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("both pin formats are accepted: a public key line and a SHA256 fingerprint", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(
        () => true,
        (exec) => exec.exit(0)
      )
      const service = yield* NodeShell
      assert.strictEqual(
        (yield* service.run(node.target({ hostKey: `${node.hostKeyLine} root@pve1` }), ["x"])).exitCode,
        0
      )
      assert.strictEqual(
        (yield* service.run(node.target({ hostKey: node.hostFingerprint, node: "pve1-fp" }), ["x"])).exitCode,
        0
      )
      assert.strictEqual(node.signedIn(), 2)
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("host key mismatch: SshHostKeyMismatch, and the node sees no authentication attempt", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      const other = yield* startFakeSshNode
      for (const hostKey of [other.hostKeyLine, other.hostFingerprint]) {
        const error = yield* failureOf(runOn(node.target({ hostKey }), ["reboot"]))
        assert.instanceOf(error, SshHostKeyMismatch)
        const mismatch = error as SshHostKeyMismatch
        assert.strictEqual(mismatch.node, "pve1")
        assert.strictEqual(mismatch.expected, other.hostFingerprint)
        assert.strictEqual(mismatch.presented, node.hostFingerprint)
      }
      assert.strictEqual(node.connections(), 2)
      assert.strictEqual(node.authAttempts(), 0)
      assert.deepStrictEqual(node.commands, [])
    }).pipe(Effect.scoped)
  )

  it.live("a client key the node does not accept: SshFailed (authentication failed)", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      const wrong = parseableKeyPair().private
      const error = yield* failureOf(runOn(node.target({ privateKey: Redacted.make(wrong) }), ["id"]))
      assert.instanceOf(error, SshFailed)
      assert.include((error as SshFailed).detail, "authentication failed")
      assert.isAbove(node.authAttempts(), 0)
      assert.deepStrictEqual(node.commands, [])
    }).pipe(Effect.scoped)
  )

  it.live("a private key ssh2 cannot use (encrypted, a public key): SshFailed naming why, never a defect", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      const encrypted = ssh2.utils.generateKeyPairSync("ed25519", {
        passphrase: "pw",
        cipher: "aes256-ctr",
        rounds: 16
      }).private
      const publicKey = parseableKeyPair().public
      for (const [key, why] of [
        [encrypted, "no passphrase given"],
        [publicKey, "does not contain a (valid) private key"]
      ] as const) {
        const exit = yield* Effect.exit(runOn(node.target({ privateKey: Redacted.make(key) }), ["id"])).pipe(
          Effect.provide(shell)
        )
        assert.isTrue(Exit.isFailure(exit) && Cause.hasFails(exit.cause), `a typed failure, not a defect: ${why}`)
        const error = yield* failureOf(runOn(node.target({ privateKey: Redacted.make(key) }), ["id"]))
        assert.instanceOf(error, SshFailed)
        assert.include((error as SshFailed).detail, why)
        assert.notInclude((error as SshFailed).message, key.split("\n")[1]!, "the key is not in the message")
      }
      assert.strictEqual(node.authAttempts(), 0)
      assert.deepStrictEqual(node.commands, [])
    }).pipe(Effect.scoped)
  )

  it.live("a refused port: SshUnreachable", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      const port = yield* freePort
      const error = yield* failureOf(runOn(node.target({ port }), ["id"]))
      assert.instanceOf(error, SshUnreachable)
      assert.include((error as SshUnreachable).detail, "ECONNREFUSED")
    }).pipe(Effect.scoped)
  )

  it.effect("back-off: during it a call fails at once without a TCP connection; after it, the call connects", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(
        () => true,
        (exec) => exec.exit(0)
      )
      const proxy = yield* startFlakyProxy(node.port)
      const target: SshTarget = node.target({ port: proxy.port })
      const service = yield* NodeShell

      proxy.refuse = true
      const first = yield* Effect.flip(service.run(target, ["id"]))
      assert.instanceOf(first, SshUnreachable)
      assert.strictEqual(proxy.connections, 1)

      // Within the first back-off (0.5 s): fails at once, with the last reason, and no new TCP connection.
      yield* TestClock.adjust("400 millis")
      const during = yield* Effect.flip(service.run(target, ["id"]))
      assert.instanceOf(during, SshUnreachable)
      assert.include((during as SshUnreachable).detail, "next attempt in 100 ms")
      assert.strictEqual(proxy.connections, 1)

      // After it: a real attempt (failing again doubles the wait to 1 s).
      yield* TestClock.adjust("100 millis")
      yield* Effect.flip(service.run(target, ["id"]))
      assert.strictEqual(proxy.connections, 2)
      yield* TestClock.adjust("999 millis")
      yield* Effect.flip(service.run(target, ["id"]))
      assert.strictEqual(proxy.connections, 2)

      proxy.refuse = false
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* service.run(target, ["id"])).exitCode, 0)
      assert.strictEqual(proxy.connections, 3)
    }).pipe(Effect.provide(shell), Effect.scoped)
  )

  it.live("closing the layer ends every pooled connection", () =>
    Effect.gen(function* () {
      const node = yield* startFakeSshNode
      node.on(
        () => true,
        (exec) => exec.exit(0)
      )
      yield* runOn(node.target(), ["id"]).pipe(Effect.provide(Layer.fresh(shell)))
      yield* eventually(() => node.closedSockets() === 1, "the connection closed")
    }).pipe(Effect.scoped)
  )
})

/** A TCP proxy to `port` that, while `refuse` is set, closes each connection at once; it counts connections. */
const startFlakyProxy = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<{ port: number; refuse: boolean; connections: number; server: net.Server }>((resume) => {
      const state = { port: 0, refuse: false, connections: 0, server: undefined as unknown as net.Server }
      const sockets = new Set<net.Socket>()
      state.server = net.createServer((socket) => {
        state.connections++
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        socket.on("error", () => {})
        if (state.refuse) return socket.destroy()
        const upstream = net.connect(port, "127.0.0.1")
        upstream.on("error", () => socket.destroy())
        socket.pipe(upstream).pipe(socket)
        socket.on("close", () => upstream.destroy())
      })
      state.server.on("close", () => {
        for (const s of sockets) s.destroy()
      })
      state.server.listen(0, "127.0.0.1", () => {
        state.port = (state.server.address() as net.AddressInfo).port
        resume(Effect.succeed(state))
      })
    }),
    (state) =>
      Effect.callback<void>((resume) => {
        state.server.close(() => resume(Effect.void))
        state.server.emit("close")
      })
  )
