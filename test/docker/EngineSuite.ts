import { assert } from "@effect/vitest"
import type { ContainerStats } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Fiber, Layer, Queue, Stream } from "effect"
import { Docker } from "../../packages/core/src/docker/Docker.js"
import * as DockerLive from "../../packages/core/src/docker/DockerLive.js"
import type { ContainerEngine } from "../support/EngineHarness.js"

// The stats and logs checks every engine must pass the same way (dockerd and Podman's Docker API): what the
// service makes of each engine's answers is the normalization SPEC §6 asks for.

/** Writes a numbered line to stdout and one to stderr every 0.1 s. */
export const chatty = {
  Cmd: ["sh", "-c", 'i=0; while true; do i=$((i+1)); echo "out $i"; echo "err $i" >&2; sleep 0.1; done'],
  StopSignal: "SIGKILL"
}

/** The Docker service over one engine, named `local`. */
export const serviceOn = (engine: ContainerEngine) =>
  Effect.map(
    Layer.build(DockerLive.layer({ hosts: [{ name: "local", url: `unix://${engine.socket}`, tls: undefined }] })),
    (context) => Context.get(context, Docker)
  )

/** Runs a stream in the background; `next(n)` waits for its next n items. */
export const collect = <A, E>(stream: Stream.Stream<A, E>) =>
  Effect.gen(function* () {
    const received = yield* Queue.unbounded<A>()
    const fiber = yield* Effect.forkChild(Stream.runForEach(stream, (item) => Queue.offer(received, item)))
    return { fiber, next: (n: number) => Effect.forEach(Array.from({ length: n }), () => Queue.take(received)) }
  })

const statsKeys = [
  ...["block_read", "block_write", "cpu_pct", "host", "id", "mem_limit", "mem_pct", "mem_used", "name"],
  ...["net_rx", "net_tx", "pids", "timestamp"]
]

/** What any engine's stats must look like once normalized. */
const assertSane = (stats: ContainerStats, name: string) => {
  assert.deepStrictEqual(Object.keys(stats).sort(), statsKeys)
  assert.strictEqual(stats.name, name)
  assert.strictEqual(stats.host, "local")
  assert.isAbove(stats.pids, 0)
  assert.isAbove(stats.mem_used, 0)
  assert.isAbove(stats.mem_limit, 0)
  assert.isTrue(stats.mem_pct >= 0 && stats.mem_pct <= 100, `mem_pct ${stats.mem_pct}`)
  assert.isTrue(Number.isFinite(stats.cpu_pct) && stats.cpu_pct >= 0, `cpu_pct ${stats.cpu_pct}`)
  for (const key of ["net_rx", "net_tx", "block_read", "block_write", "mem_used", "mem_limit"] as const) {
    assert.isTrue(Number.isInteger(stats[key]) && stats[key] >= 0, `${key} ${stats[key]}`)
  }
  assert.match(stats.timestamp, /^\d{4}-\d\d-\d\dT/)
}

/**
 * Stats: one sample and a stream at the engine's cadence, normalized; a container keeping one CPU busy reads
 * about 100% (as `docker stats` shows it) from every engine, however the engine reports the host's CPU time.
 */
export const statsSuite = (engine: ContainerEngine) =>
  Effect.gen(function* () {
    yield* engine.run("quiet", chatty)
    yield* engine.run("spinner", { Cmd: ["sh", "-c", "yes > /dev/null"], StopSignal: "SIGKILL" })
    const docker = yield* serviceOn(engine)
    assertSane(yield* docker.stats("quiet"), "quiet")
    const busy = yield* docker.stats("spinner")
    assertSane(busy, "spinner")
    // One CPU's worth, whatever else the machine does meanwhile (the test runs on a shared, busy machine).
    assert.isTrue(busy.cpu_pct > 30 && busy.cpu_pct < 130, `a busy CPU reads ${busy.cpu_pct}%`)
    const stream = yield* docker.watchStats("quiet")
    const samples = [...(yield* Stream.runCollect(Stream.take(stream, 2)))]
    assert.lengthOf(samples, 2)
    for (const sample of samples) assertSane(sample, "quiet")
    assert.notStrictEqual(samples[0]?.timestamp, samples[1]?.timestamp)
  })

/** Logs: the last lines of stdout and stderr, one output alone with timestamps, a TTY container, and a follow. */
export const logsSuite = (engine: ContainerEngine) =>
  Effect.gen(function* () {
    yield* engine.run("chatty", chatty)
    yield* engine.run("tty", {
      Tty: true,
      Cmd: ["sh", "-c", "echo hello from a tty; exec sleep 1000"],
      StopSignal: "SIGKILL"
    })
    const docker = yield* serviceOn(engine)
    // Wait until it has written a few lines.
    const deadline = Date.now() + 10_000
    while ((yield* docker.logs("chatty", { limit: 6 })).length < 6 && Date.now() < deadline) {
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
    }
    const last = yield* docker.logs("chatty", { limit: 6 })
    assert.lengthOf(last, 6)
    assert.sameMembers([...new Set(last.map((l) => l.stream))], ["stdout", "stderr"])
    for (const line of last) assert.match(line.line, line.stream === "stdout" ? /^out \d+$/ : /^err \d+$/)
    const onlyErr = yield* docker.logs("chatty", { limit: 3, stdout: false, timestamps: true })
    assert.lengthOf(onlyErr, 3)
    assert.deepStrictEqual([...new Set(onlyErr.map((l) => l.stream))], ["stderr"])
    for (const line of onlyErr) assert.match(line.timestamp ?? "", /^\d{4}-\d\d-\d\dT/)
    const ttyDeadline = Date.now() + 10_000
    let tty = yield* docker.logs("tty", { limit: 10 })
    while (tty.length === 0 && Date.now() < ttyDeadline) {
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      tty = yield* docker.logs("tty", { limit: 10 })
    }
    assert.deepStrictEqual(tty, [{ stream: "stdout", line: "hello from a tty" }])
    // A TTY has one output: asked for stderr alone, there is nothing (at once, not after reading back 10,000 lines).
    assert.deepStrictEqual(yield* docker.logs("tty", { limit: 10, stdout: false }), [])
    // A TTY log whose last line is a JSON value is still lines of text (dockerode would parse the body as JSON).
    yield* engine.run("tty-json", {
      Tty: true,
      Cmd: ["sh", "-c", `echo '{"level":"info"}'; exec sleep 1000`],
      StopSignal: "SIGKILL"
    })
    let json = yield* docker.logs("tty-json", { limit: 1 })
    while (json.length === 0 && Date.now() < ttyDeadline + 10_000) {
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      json = yield* docker.logs("tty-json", { limit: 1 })
    }
    assert.deepStrictEqual(json, [{ stream: "stdout", line: '{"level":"info"}' }])

    const follow = yield* collect(yield* docker.followLogs("chatty", { limit: 2, stderr: false }))
    const lines = yield* follow.next(5)
    const numbers = lines.map((l) => Number(l.line.replace("out ", "")))
    assert.deepStrictEqual(
      numbers,
      numbers.map((_, i) => numbers[0]! + i),
      "consecutive, nothing lost"
    )
    yield* Fiber.interrupt(follow.fiber)
  })
