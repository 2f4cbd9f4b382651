import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Queue, Redacted, Stream } from "effect"
import ssh2 from "ssh2"
import {
  NodeShell,
  NodeShellLive,
  SshFailed,
  SshHostKeyMismatch,
  type SshTarget
} from "../../packages/core/src/index.js"
import { requireTool } from "../support/e2e.js"
import { lxcHost } from "../support/Lxc.js"
import { type Sshd, startSshd } from "../support/Sshd.js"
import { parseableKeyPair } from "../support/SshKeys.js"
import { tempDir } from "../support/TempDir.js"

// Against a real OpenSSH sshd on loopback (test-infra §2): real shell quoting, real `tail -F`, and a real login as
// root, whose sshd refuses signal requests, so only closing the channel can end a follow.

const sshd = requireTool("/usr/sbin/sshd")
const lxc = [requireTool("lxc-create"), requireTool("lxc-attach"), requireTool("busybox")]

const targetOf = (server: Sshd, overrides: Partial<SshTarget> = {}): SshTarget => ({
  node: "pve",
  host: "127.0.0.1",
  port: server.port,
  user: "root",
  privateKey: Redacted.make(server.clientKeyPem),
  hostKey: server.hostKeyLine,
  ...overrides
})

/** Host processes whose command line contains `marker` (`pgrep -f`, run without a shell so it cannot match itself). */
const processesMatching = (marker: string) =>
  Effect.callback<ReadonlyArray<string>>((resume) => {
    execFile("pgrep", ["-f", marker], (_error, stdout) =>
      resume(Effect.succeed(stdout.split("\n").filter((line) => line !== "")))
    )
  })

/** Polls until `check` holds (wall clock: the processes are real), failing after `timeoutMs`. */
const waitFor = <A>(read: Effect.Effect<A>, check: (a: A) => boolean, what: string, timeoutMs = 5_000) =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + timeoutMs
    while (true) {
      const value = yield* read
      if (check(value)) return value
      if ((yield* Clock.currentTimeMillis) > deadline) return assert.fail(`timed out waiting for ${what}`)
      yield* Effect.sleep("25 millis")
    }
  })

/** Runs `stream` in the background, handing each line to a queue the test reads at its own pace. */
const follow = (stream: Stream.Stream<string, unknown>) =>
  Effect.gen(function* () {
    const received = yield* Queue.unbounded<string>()
    const fiber = yield* Effect.forkChild(Stream.runForEach(stream, (line) => Queue.offer(received, line)))
    const next = (n: number) => Effect.forEach(Array.from({ length: n }), () => Queue.take(received))
    return { next, fiber }
  })

describe.skipIf(sshd.skip)("NodeShell against OpenSSH sshd", () => {
  it.live("lines of `tail -F` receive what is appended; closing the stream ends the remote tail", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const server = yield* startSshd(path.join(base, "sshd"))
      const shell = yield* NodeShell
      const file = path.join(base, `follow-${process.pid}-${Date.now()}.log`)
      fs.writeFileSync(file, "old 1\nold 2\nold 3\n")
      const { next, fiber } = yield* follow(shell.lines(targetOf(server), ["tail", "-n", "2", "-F", file]))
      assert.deepStrictEqual(yield* next(2), ["old 2", "old 3"])
      fs.appendFileSync(file, "new 1\n")
      assert.deepStrictEqual(yield* next(1), ["new 1"])
      fs.appendFileSync(file, "new 2\nnew 3\n")
      assert.deepStrictEqual(yield* next(2), ["new 2", "new 3"])
      assert.lengthOf(yield* processesMatching(file), 1)

      yield* Fiber.interrupt(fiber)
      // Proven on the remote side: the tail is gone (without any new output to trip over).
      yield* waitFor(processesMatching(file), (pids) => pids.length === 0, "the remote tail to exit")
      // sshd's confirmation that the channel closed arrives after the process is gone, not with it.
      yield* waitFor(shell.stats, (s) => s.channelsOpen === 0, "sshd to confirm the channel closed")
      assert.deepStrictEqual(server.execLog(), [`'tail' '-n' '2' '-F' '${file}'`])
    }).pipe(Effect.provide(NodeShellLive.layer), Effect.scoped)
  )

  it.live("quoting: a word with quotes, spaces and $(...) arrives as one literal argument", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const server = yield* startSshd(path.join(base, "sshd"))
      const shell = yield* NodeShell
      const pwned = path.join(base, "pwned")
      const word = `it's a "word" $(touch ${pwned}) \`touch ${pwned}\` ; touch ${pwned} | * ~ \\n`
      const result = yield* shell.run(targetOf(server), ["printf", "%s\\n", word, "second"])
      assert.deepStrictEqual(result, { exitCode: 0, stdout: `${word}\nsecond\n`, stderr: "" })
      assert.isFalse(fs.existsSync(pwned))
    }).pipe(Effect.provide(NodeShellLive.layer), Effect.scoped)
  )

  it.live("a non-zero exit: run returns it, lines fails with the status and the first stderr line", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const server = yield* startSshd(path.join(base, "sshd"))
      const shell = yield* NodeShell
      const missing = path.join(base, "missing.log")
      const result = yield* shell.run(targetOf(server), ["tail", "-n", "1", missing])
      assert.strictEqual(result.exitCode, 1)
      const error = yield* Effect.flip(Stream.runDrain(shell.lines(targetOf(server), ["tail", "-n", "1", missing])))
      assert.instanceOf(error, SshFailed)
      assert.match((error as SshFailed).detail, /^command exited with status 1: tail: cannot open '.*missing\.log'/)
    }).pipe(Effect.provide(NodeShellLive.layer), Effect.scoped)
  )

  it.live("host key mismatch against real sshd: SshHostKeyMismatch, nothing authenticated or run", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const server = yield* startSshd(path.join(base, "sshd"))
      const other = ssh2.utils.parseKey(parseableKeyPair().private)
      if (other instanceof Error) return assert.fail(other.message)
      const pinned = `ssh-ed25519 ${other.getPublicSSH().toString("base64")}`
      const error = yield* Effect.flip((yield* NodeShell).run(targetOf(server, { hostKey: pinned }), ["id"]))
      assert.instanceOf(error, SshHostKeyMismatch)
      assert.match((error as SshHostKeyMismatch).presented, /^SHA256:[A-Za-z0-9+/]{43}$/)
      assert.deepStrictEqual(server.execLog(), [])
      assert.notInclude(server.log(), "Accepted publickey")
    }).pipe(Effect.provide(NodeShellLive.layer), Effect.scoped)
  )

  it.live("the journalctl shim: -n, repeated -u, --no-pager; -f follows", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const journal = path.join(base, "journal")
      fs.mkdirSync(journal)
      fs.writeFileSync(path.join(journal, "pveproxy.log"), "p1\np2\np3\n")
      fs.writeFileSync(path.join(journal, "pvedaemon.log"), "d1\nd2\n")
      fs.writeFileSync(path.join(journal, "node.log"), "n1\n")
      const server = yield* startSshd(path.join(base, "sshd"), { env: { GATEHOUSE_JOURNAL_DIR: journal } })
      const shell = yield* NodeShell
      const target = targetOf(server)
      const once = yield* shell.run(target, [
        "journalctl",
        "-n",
        "1",
        "-u",
        "pveproxy",
        "-u",
        "pvedaemon.service",
        "--no-pager"
      ])
      assert.deepStrictEqual(once, { exitCode: 0, stdout: "p3\nd2\n", stderr: "" })
      assert.strictEqual((yield* shell.run(target, ["journalctl", "-o", "short", "--no-pager"])).stdout, "n1\n")
      const { next, fiber } = yield* follow(shell.lines(target, ["journalctl", "-f", "-n", "2", "-u", "pveproxy"]))
      assert.deepStrictEqual(yield* next(2), ["p2", "p3"])
      fs.appendFileSync(path.join(journal, "pveproxy.log"), "p4\n")
      assert.deepStrictEqual(yield* next(1), ["p4"])
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(NodeShellLive.layer), Effect.scoped)
  )

  it.live("past the per-connection channel limit a second connection opens; every stream works", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      // A node that allows 2 sessions per connection, and a shell told so.
      const server = yield* startSshd(path.join(base, "sshd"), { maxSessions: 2 })
      const shell = yield* NodeShell
      const target = targetOf(server)
      const file = path.join(base, "capped.log")
      fs.writeFileSync(file, "x\n")
      const follows = yield* Effect.forEach(Array.from({ length: 3 }), () =>
        follow(shell.lines(target, ["tail", "-n", "1", "-F", file]))
      )
      for (const f of follows) assert.deepStrictEqual(yield* f.next(1), ["x"])
      assert.strictEqual(yield* Effect.map(shell.run(target, ["true"]), (r) => r.exitCode), 0)
      assert.deepStrictEqual(yield* shell.stats, { connectionsOpened: 2, connectionsOpen: 2, channelsOpen: 3 })
      fs.appendFileSync(file, "y\n")
      for (const f of follows) assert.deepStrictEqual(yield* f.next(1), ["y"])
      yield* Effect.forEach(follows, (f) => Fiber.interrupt(f.fiber))
    }).pipe(Effect.provide(NodeShellLive.layerWith({ maxChannelsPerConnection: 2 })), Effect.scoped)
  )

  it.live("a node that refuses a channel below the configured limit: SshFailed; the other streams keep going", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const server = yield* startSshd(path.join(base, "sshd"), { maxSessions: 2 })
      const shell = yield* NodeShell
      const target = targetOf(server)
      const file = path.join(base, "capped.log")
      fs.writeFileSync(file, "x\n")
      const first = yield* follow(shell.lines(target, ["tail", "-n", "1", "-F", file]))
      const second = yield* follow(shell.lines(target, ["tail", "-n", "1", "-F", file]))
      assert.deepStrictEqual([...(yield* first.next(1)), ...(yield* second.next(1))], ["x", "x"])
      const error = yield* Effect.flip(shell.run(target, ["true"]))
      assert.instanceOf(error, SshFailed)
      assert.include((error as SshFailed).detail, "refused a command channel")
      fs.appendFileSync(file, "y\n")
      assert.deepStrictEqual([...(yield* first.next(1)), ...(yield* second.next(1))], ["y", "y"])
      yield* Fiber.interrupt(first.fiber)
      yield* Fiber.interrupt(second.fiber)
    }).pipe(Effect.provide(NodeShellLive.layerWith({ maxChannelsPerConnection: 10 })), Effect.scoped)
  )

  it.live("a closed follow whose command lingers keeps its session counted until sshd confirms the close", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const server = yield* startSshd(path.join(base, "sshd"), { maxSessions: 2 })
      const shell = yield* NodeShell
      const target = targetOf(server)
      const file = path.join(base, "lingering.log")
      fs.writeFileSync(file, "x\n")
      // busybox's `tail -F` learns of the closed channel only at its next write: it outlives our close, and sshd
      // counts its session against MaxSessions until it exits.
      const follows = yield* Effect.forEach(Array.from({ length: 2 }), () =>
        follow(shell.lines(target, ["busybox", "tail", "-n", "1", "-F", file]))
      )
      for (const f of follows) assert.deepStrictEqual(yield* f.next(1), ["x"])
      yield* Effect.forEach(follows, (f) => Fiber.interrupt(f.fiber))
      assert.lengthOf(yield* processesMatching(file), 2)
      // The first connection is still full as far as sshd is concerned: the command goes to a second one instead of
      // being refused.
      assert.strictEqual((yield* shell.run(target, ["true"])).exitCode, 0)
      assert.deepStrictEqual(yield* shell.stats, { connectionsOpened: 2, connectionsOpen: 2, channelsOpen: 2 })
      // A write ends both tails; sshd confirms the closes, and the first connection takes commands again.
      fs.appendFileSync(file, "y\n")
      yield* waitFor(shell.stats, (s) => s.channelsOpen === 0, "sshd to confirm both closes")
      const both = yield* Effect.forEach(Array.from({ length: 2 }), () => shell.run(target, ["true"]), {
        concurrency: 2
      })
      assert.deepStrictEqual(
        both.map((r) => r.exitCode),
        [0, 0]
      )
      assert.strictEqual((yield* shell.stats).connectionsOpened, 2)
    }).pipe(Effect.provide(NodeShellLive.layerWith({ maxChannelsPerConnection: 2 })), Effect.scoped)
  )

  it.live("closing a follow whose command exits at once frees its place for the next command on that connection", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const server = yield* startSshd(path.join(base, "sshd"), { maxSessions: 2 })
      const shell = yield* NodeShell
      const target = targetOf(server)
      const file = path.join(base, "prompt.log")
      fs.writeFileSync(file, "x\n")
      // coreutils' `tail -F` exits as soon as the channel closes; sshd confirms within milliseconds.
      const follows = yield* Effect.forEach(Array.from({ length: 2 }), () =>
        follow(shell.lines(target, ["tail", "-n", "1", "-F", file]))
      )
      for (const f of follows) assert.deepStrictEqual(yield* f.next(1), ["x"])
      yield* Effect.forEach(follows, (f) => Fiber.interrupt(f.fiber))
      // Closed moments ago: the command waits for sshd's confirmation and reuses the connection instead of opening
      // another.
      assert.strictEqual((yield* shell.run(target, ["true"])).exitCode, 0)
      assert.deepStrictEqual(yield* shell.stats, { connectionsOpened: 1, connectionsOpen: 1, channelsOpen: 0 })
    }).pipe(Effect.provide(NodeShellLive.layerWith({ maxChannelsPerConnection: 2 })), Effect.scoped)
  )

  it.live("one connection carries many channels (measured)", () =>
    Effect.gen(function* () {
      const base = yield* tempDir("gatehouse-sshd-")
      const server = yield* startSshd(path.join(base, "sshd"))
      const shell = yield* NodeShell
      const target = targetOf(server)
      const t0 = yield* Clock.currentTimeMillis
      yield* shell.run(target, ["true"])
      const connectMs = (yield* Clock.currentTimeMillis) - t0
      const file = path.join(base, "many.log")
      fs.writeFileSync(file, "x\n")
      const n = 30
      const firsts = yield* Effect.forEach(Array.from({ length: n }), () => Deferred.make<void>())
      const fibers = yield* Effect.forEach(firsts, (first) =>
        Effect.forkChild(
          Stream.runForEach(shell.lines(target, ["tail", "-n", "1", "-F", file]), () =>
            Deferred.succeed(first, undefined)
          )
        )
      )
      const t1 = yield* Clock.currentTimeMillis
      yield* Effect.forEach(firsts, Deferred.await)
      const allMs = (yield* Clock.currentTimeMillis) - t1
      const stats = yield* shell.stats
      assert.deepStrictEqual(stats, { connectionsOpened: 1, connectionsOpen: 1, channelsOpen: n })
      yield* Effect.forEach(fibers, Fiber.interrupt)
      yield* waitFor(processesMatching(file), (pids) => pids.length === 0, "every remote tail to exit")
      console.log(
        `[measured] first command incl. connect: ${connectMs} ms; ${n} follows on one connection: ${allMs} ms`
      )
      // This sshd allows 100 sessions per connection (MaxSessions); the shell is told so.
    }).pipe(Effect.provide(NodeShellLive.layerWith({ maxChannelsPerConnection: 100 })), Effect.scoped)
  )
})

describe.skipIf(sshd.skip || lxc.some((tool) => tool.skip))("NodeShell + pct shim + LXC", () => {
  it.live(
    "pct exec streams from inside a running container; closing the stream ends it; stopped/unknown CTs fail",
    () =>
      Effect.gen(function* () {
        const base = yield* tempDir("gatehouse-lxc-")
        const host = yield* lxcHost(base)
        const server = yield* startSshd(path.join(base, "sshd"), { env: { GATEHOUSE_LXC_PATH: host.path } })
        const shell = yield* NodeShell
        const target = targetOf(server)
        // Above the fixed vmids of the other LXC tests (301, 901): another file may run its guest meanwhile, and
        // LXC's cgroup names are host-wide whatever the `-P` directory.
        const vmid = 1000 + (process.pid % 8000)
        yield* host.create(vmid)
        assert.deepStrictEqual(yield* shell.run(target, ["pct", "status", String(vmid)]), {
          exitCode: 0,
          stdout: "status: stopped\n",
          stderr: ""
        })
        const stopped = yield* shell.run(target, ["pct", "exec", String(vmid), "--", "true"])
        assert.strictEqual(stopped.exitCode, 255)
        assert.strictEqual(stopped.stderr, `CT ${vmid} not running\n`)

        yield* host.start(vmid)
        assert.strictEqual((yield* shell.run(target, ["pct", "status", String(vmid)])).stdout, "status: running\n")
        const log = `/var/log/gatehouse-${vmid}-${process.pid}.log`
        const written = yield* host.attach(vmid, ["sh", "-c", `printf 'c1\\nc2\\nc3\\n' > ${log}`])
        assert.strictEqual(written.code, 0, written.stderr)
        const { next, fiber } = yield* follow(
          shell.lines(target, ["pct", "exec", String(vmid), "--", "tail", "-n", "5", "-F", log])
        )
        assert.deepStrictEqual(yield* next(3), ["c1", "c2", "c3"])
        yield* host.attach(vmid, ["sh", "-c", `echo "from inside $(hostname)" >> ${log}`])
        assert.deepStrictEqual(yield* next(1), [`from inside ${vmid}`])
        // The host sees both lxc-attach and the tail inside the container (its PID namespace is nested in ours).
        assert.lengthOf(yield* processesMatching(log), 2)
        yield* Fiber.interrupt(fiber)
        // The channel is closed at once (sshd sees EOF and the remote pipe breaks). busybox's `tail -F`, unlike
        // coreutils 9's, does not watch its output for a closed pipe: it learns of it at its next write (SIGPIPE),
        // then lxc-attach exits too. So one more line is written inside the container, and everything must be gone.
        // (sshd confirms the channel's close only once the command is gone, so until then it counts as open.)
        yield* Effect.sleep("200 millis")
        yield* host.attach(vmid, ["sh", "-c", `echo after-close >> ${log}`])
        yield* waitFor(processesMatching(log), (pids) => pids.length === 0, "the tail inside the container to exit")
        yield* waitFor(shell.stats, (s) => s.channelsOpen === 0, "sshd to confirm the channel closed")

        const unknown = yield* Effect.flip(Stream.runDrain(shell.lines(target, ["pct", "exec", "999", "--", "true"])))
        assert.instanceOf(unknown, SshFailed)
        assert.strictEqual(
          (unknown as SshFailed).detail,
          "command exited with status 2: Configuration file 'nodes/pve/lxc/999.conf' does not exist"
        )
        yield* host.stop(vmid)
        assert.strictEqual((yield* shell.run(target, ["pct", "status", String(vmid)])).stdout, "status: stopped\n")
      }).pipe(Effect.provide(NodeShellLive.layer), Effect.scoped)
  )
})
