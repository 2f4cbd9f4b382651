import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import {
  ConfigEvents,
  closeCodeOf,
  errorCodeOf,
  GuestNotFound,
  GuestNotRunning,
  grpcStatusOf,
  HypervisorNodeNotFound,
  HypervisorNotConfigured,
  httpStatusOf,
  InvalidArgument,
  ProxmoxAccessDenied,
  ProxmoxFailed,
  ProxmoxTaskFailed,
  ProxmoxTimedOut,
  SshNotConfigured,
  SshTimedOut,
  toWireError
} from "@gatehouse-edge/contract/domain"
import { Effect, Exit, Fiber, Layer, Queue, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import ssh2 from "ssh2"
import { SecretUnreadable } from "../../packages/core/src/config/ReadSecret.js"
import { NodeShell } from "../../packages/core/src/hypervisor/NodeShell.js"
import type { PveSim } from "../pve-sim/PveSimulator.js"
import { defaultGuests } from "../pve-sim/SimState.js"
import { recordingShell } from "../support/RecordingShell.js"
import { parseableKeyPair } from "../support/SshKeys.js"
import { tempDir } from "../support/TempDir.js"
import { buildHypervisor, clusterOf, simulator, withToken } from "./HypervisorFixture.js"

// A pause on the wall clock, whichever clock the test runs on: the simulator answers in real time.
const pause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

// Polls with a deadline on the real clock (the simulator answers in real time even where the test clock is fixed).
const eventually = <A, E>(check: Effect.Effect<A | undefined, E>, what: string, timeoutMs = 5000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const value = yield* check
      if (value !== undefined) return value
      yield* pause(10)
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

// The simulator's cluster with SSH to node pve1 configured, its private key (`key`, default a usable one) in a file
// of a temp dir; the shell under test is a fake, so nothing connects.
const withSsh = (sim: PveSim, key: string = parseableKeyPair().private) =>
  Effect.gen(function* () {
    const file = path.join(yield* tempDir("gatehouse-pve-key-"), "id_ed25519")
    fs.writeFileSync(file, key, { mode: 0o600 })
    const hostKey = "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"
    const cluster = clusterOf(sim, {
      ssh: { user: "root", port: 22, privateKey: file, nodes: { pve1: { host: "127.0.0.1", port: 22, hostKey } } }
    })
    return { cluster, file }
  })

describe("HypervisorLive against the simulator", () => {
  it.live("lists nodes and guests from the cache; stats JSON from the node, the stats line from the cache", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer)
        const nodes = yield* hypervisor.nodes
        assert.deepStrictEqual(
          nodes.map((n) => [n.cluster, n.node, n.status]),
          [["sim", "pve1", "online"]]
        )
        const guests = yield* hypervisor.guests
        assert.deepStrictEqual(
          guests.map((g) => [g.vmid, g.name, g.status]),
          [
            [101, "web", "running"],
            [102, "db", "stopped"]
          ]
        )
        const stats = yield* hypervisor.nodeStats("pve1")
        assert.strictEqual(stats.node, "pve1")
        assert.isAbove(stats.mem_total, 0)
        assert.strictEqual(stats.load_avg.length, 3)
        assert.match(yield* hypervisor.guestStatsLine("pve1", 101), /^running\|\d+\.\d%\|[\d.]+[KMGTP]?i?B\/512MiB\|/)
        assert.match(yield* hypervisor.guestStatsLine("pve1", 102), /^stopped\|0\.0%\|0B\//)
      })
    )
  )

  it.live("finds addresses of running containers and answers reverse lookups by IP, hostname and alias", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer)
        const web = yield* eventually(
          Effect.map(hypervisor.guests, (all) => all.find((g) => g.vmid === 101 && g.ips.length > 0)),
          "the addresses of 101"
        )
        assert.include(web.ips, "10.0.0.101")
        assert.deepStrictEqual(yield* hypervisor.locate("10.0.0.101"), {
          cluster: "sim",
          node: "pve1",
          vmid: 101,
          status: "running"
        })
        assert.strictEqual((yield* hypervisor.locate("web"))?.vmid, 101)
        assert.strictEqual((yield* hypervisor.locate("WEB.example.com"))?.vmid, 101)
        assert.deepStrictEqual(yield* hypervisor.locate("pve1"), {
          cluster: "sim",
          node: "pve1",
          vmid: 0,
          status: "online"
        })
        assert.isUndefined(yield* hypervisor.locate("10.9.9.9"))
        // Only the running container was asked for its interfaces.
        assert.strictEqual(sim.countRequests(/\/lxc\/102\/interfaces/), 0)
      })
    )
  )

  it.live("unknown node 404, unknown vmid 404, not configured 503", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer)
        assert.instanceOf(yield* Effect.flip(hypervisor.nodeStats("nope")), HypervisorNodeNotFound)
        assert.instanceOf(yield* Effect.flip(hypervisor.guestStatsLine("pve1", 999)), GuestNotFound)
        assert.instanceOf(yield* Effect.flip(hypervisor.lxc("pve1", 999, "start", "test")), GuestNotFound)
        // A miss looks again after a refresh, but no more than one refresh a second whatever the misses.
        yield* hypervisor.nodes
        sim.resetRequests()
        for (let i = 0; i < 20; i++) yield* Effect.flip(hypervisor.guestStatsLine("pve1", 900 + i))
        assert.isAtMost(sim.countRequests("/cluster/resources"), 1)
        const none = yield* buildHypervisor({ clusters: [] }, recordingShell().layer)
        assert.instanceOf(yield* Effect.flip(none.hypervisor.nodes), HypervisorNotConfigured)
        assert.instanceOf(yield* Effect.flip(none.hypervisor.nodeStats("pve1")), HypervisorNotConfigured)
        assert.instanceOf(yield* Effect.flip(none.hypervisor.cacheState), HypervisorNotConfigured)
      })
    )
  )

  it.effect("one cache poll per interval; a failed refresh keeps the data, marks it stale, and recovers", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor, events } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer)
        const polls = () => sim.countRequests("/cluster/resources")
        yield* eventually(
          Effect.sync(() => (polls() >= 1 ? true : undefined)),
          "the first refresh"
        )
        yield* eventually(
          Effect.map(hypervisor.cacheState, (s) => (s[0]?.stale === false ? true : undefined)),
          "a fresh cache"
        )
        // Many readers cost nothing upstream.
        for (let i = 0; i < 50; i++) yield* hypervisor.guestStatsLine("pve1", 101)
        assert.strictEqual(polls(), 1)
        // The poller sleeps only once its refresh is done: advance until it has polled again.
        yield* eventually(
          Effect.andThen(TestClock.adjust("3 seconds"), pause(30)).pipe(
            Effect.map(() => (polls() >= 2 ? true : undefined))
          ),
          "the second refresh"
        )
        assert.strictEqual(polls(), 2)

        yield* Effect.promise(() => sim.stop())
        const stale = yield* eventually(
          Effect.andThen(TestClock.adjust("3 seconds"), hypervisor.cacheState).pipe(
            Effect.map((s) => (s[0]?.stale === true ? s[0] : undefined))
          ),
          "a stale cache"
        )
        assert.match(stale.error ?? "", /unreachable/)
        assert.strictEqual((yield* hypervisor.guests).length, 2, "the last good data is kept")
        yield* TestClock.adjust("3 seconds")
        yield* Effect.promise(() => sim.start())
        yield* TestClock.adjust("3 seconds")
        yield* eventually(
          Effect.map(hypervisor.cacheState, (s) => (s[0]?.stale === false ? true : undefined)),
          "recovery"
        )
        const kinds = (yield* events.history({ category: "hypervisor" })).map((e) => e.action)
        assert.deepStrictEqual(
          kinds.filter((k) => k.startsWith("cache_")),
          ["cache_stale", "cache_recovered"],
          "one event per transition, not per failed poll"
        )
      })
    )
  )

  it.effect("N watchers of a node's stats cost one Proxmox call per second; the last leaving stops the poll", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer)
        yield* hypervisor.nodes
        const statusCalls = () => sim.countRequests("/nodes/pve1/status")
        const frames = yield* Queue.unbounded<number>()
        const watchers = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) =>
            hypervisor.watchNodeStats("pve1").pipe(
              Stream.runForEach(() => Queue.offer(frames, i)),
              Effect.forkScoped
            )
        )
        for (let round = 1; round <= 3; round++) {
          for (let seen = 0; seen < 20; seen++) yield* Queue.take(frames)
          assert.strictEqual(statusCalls(), round)
          yield* TestClock.adjust("1 second")
        }
        yield* Effect.forEach(watchers, Fiber.interrupt, { discard: true })
        const after = statusCalls()
        yield* TestClock.adjust("5 seconds")
        yield* pause(100)
        assert.strictEqual(statusCalls(), after, "no poll without watchers")
      })
    )
  )

  it.live("LXC start/stop/restart: waits for the task, confirms the state, idempotent, emits events", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor, events } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20 }
        })
        const started = yield* hypervisor.lxc("pve1", 102, "start", "alice")
        assert.strictEqual(started.message, "container started")
        assert.strictEqual(started.status, "running")
        assert.match(
          started.task ?? "",
          /^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:vzstart:102:root@pam!gatehouse:$/
        )
        assert.strictEqual(
          (yield* hypervisor.guestStatsLine("pve1", 102)).split("|")[0],
          "running",
          "the cache shows what Proxmox confirmed, not the lagging poll"
        )
        const again = yield* hypervisor.lxc("pve1", 102, "start", "alice")
        assert.deepStrictEqual(again, { message: "container already running", status: "running" })
        const restarted = yield* hypervisor.lxc("pve1", 102, "restart", "alice")
        assert.strictEqual(restarted.message, "container restarted")
        assert.match(restarted.task ?? "", /:vzreboot:102:/)
        const stopped = yield* hypervisor.lxc("pve1", 102, "stop", "alice")
        assert.strictEqual(stopped.message, "container stopped")
        assert.match(stopped.task ?? "", /:vzshutdown:102:/, "a graceful shutdown first")
        // A shutdown that fails (the container ignored it until the timeout): stopped hard after it.
        yield* hypervisor.lxc("pve1", 102, "start", "alice")
        sim.failNextTask(102, "shutdown timed out")
        const forced = yield* hypervisor.lxc("pve1", 102, "stop", "alice")
        assert.strictEqual(forced.message, "container stopped")
        assert.match(forced.task ?? "", /:vzstop:102:/)
        assert.deepStrictEqual(yield* hypervisor.lxc("pve1", 102, "stop", "alice"), {
          message: "container already stopped",
          status: "stopped"
        })
        const history = yield* events.history({ category: "hypervisor" })
        const lxcEvents = history.filter((e) => e.action.startsWith("lxc_"))
        assert.deepStrictEqual(
          lxcEvents.map((e) => e.action),
          ["lxc_start", "lxc_start", "lxc_restart", "lxc_stop", "lxc_start", "lxc_stop", "lxc_stop"]
        )
        assert.deepInclude(lxcEvents[0]?.data as object, { node: "pve1", vmid: 102, status: "running", by: "alice" })
      })
    )
  )

  it.live("LXC: journal and tail of a container work at once after a start, though /cluster/resources lags (RRD)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const shell = recordingShell(() => ["line"])
        const { cluster } = yield* withSsh(sim)
        const { hypervisor } = yield* buildHypervisor({ clusters: [cluster] }, shell.layer, {
          lxc: { pollIntervalMs: 20 }
        })
        const tail = hypervisor.tail({ node: "pve1", vmid: 102, files: ["/var/log/syslog"] })
        assert.instanceOf(yield* Effect.flip(tail), GuestNotRunning)
        yield* hypervisor.lxc("pve1", 102, "start", "alice")
        // pvestatd has not written 102's new state yet (the refresh after the action still read it stopped): the cache
        // says what Proxmox confirmed.
        assert.deepStrictEqual(yield* Stream.runCollect(yield* tail), ["line"])
        const journal = yield* hypervisor.journal({ node: "pve1", vmid: 102 })
        assert.deepStrictEqual(yield* Stream.runCollect(journal), ["line"])
        yield* hypervisor.lxc("pve1", 102, "stop", "alice")
        assert.instanceOf(yield* Effect.flip(tail), GuestNotRunning, "and refused at once after a stop")
      })
    )
  )

  it.live("LXC stop of an HA-managed container: its hastop ends at once, and it is given time, not stopped hard", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator({
          guests: defaultGuests.map((guest) =>
            guest.vmid === 102 ? { ...guest, status: "running", ha: { state: "started" } } : guest
          )
        })
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20 }
        })
        const stopped = yield* hypervisor.lxc("pve1", 102, "stop", "alice")
        assert.deepInclude(stopped, { message: "container stopped", status: "stopped" })
        assert.match(stopped.task ?? "", /:hastop:102:/)
        // The HA manager stopped it, gracefully: no `status/stop` (which HA would run as a stop with timeout 0).
        assert.deepStrictEqual(
          sim.requests.filter((r) => r.method === "POST" && r.path.includes("/lxc/102/status/")).map((r) => r.path),
          ["/api2/json/nodes/pve1/lxc/102/status/shutdown"]
        )
      })
    )
  )

  it.live("LXC: an action whose caller goes away (interrupted) still runs to its end and is recorded", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator({ taskDurationMs: 300 })
        const { hypervisor, events } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20 }
        })
        const caller = yield* Effect.forkChild(hypervisor.lxc("pve1", 101, "stop", "carol"))
        // Proxmox has the task: the caller leaves while Gatehouse waits for it.
        yield* eventually(
          Effect.sync(() => (sim.countRequests(/\/lxc\/101\/status\/shutdown/) > 0 ? true : undefined)),
          "the shutdown request"
        )
        yield* Fiber.interrupt(caller)
        const recorded = yield* eventually(
          Effect.map(events.history({ category: "hypervisor" }), (history) =>
            history.find((e) => e.action === "lxc_stop")
          ),
          "the lxc_stop event"
        )
        assert.deepInclude(recorded.data as object, { vmid: 101, status: "stopped", by: "carol" })
      })
    )
  )

  it.live("LXC: a failed task is a 502 with its exit status; no result in time is a 504", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor, events } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20, timeoutMs: 400 }
        })
        sim.failNextTask(102, "startup for container '102' failed")
        const failed = yield* Effect.flip(hypervisor.lxc("pve1", 102, "start", "bob"))
        assert.instanceOf(failed, ProxmoxTaskFailed)
        assert.strictEqual(failed.exitstatus, "startup for container '102' failed")
        sim.hang(/\/tasks\//)
        const late = yield* Effect.flip(hypervisor.lxc("pve1", 102, "start", "bob"))
        assert.instanceOf(late, ProxmoxTimedOut)
        const failures = (yield* events.history({ category: "hypervisor" })).filter((e) => e.action === "lxc_failed")
        assert.strictEqual(failures.length, 2)
      })
    )
  )

  it.live("LXC: a task poll that fails transiently (5xx, timeout) is polled again; a 4xx ends the wait", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator({ taskDurationMs: 300 })
        const { hypervisor, events } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          requestTimeoutMs: 200,
          lxc: { pollIntervalMs: 20 }
        })
        const taskPolls = /\/tasks\/.*\/status$/
        // One 500 from pveproxy on one poll of the start task: Proxmox still finishes the task.
        sim.fault({ match: taskPolls, status: 500, reason: "proxy loop detected", once: true })
        const started = yield* hypervisor.lxc("pve1", 102, "start", "alice")
        assert.deepInclude(started, { message: "container started", status: "running" })
        // One poll of the shutdown task that gets no answer in time: still a graceful shutdown, not an error.
        const shutdownPolls = /vzshutdown.*\/status$/
        sim.hang(shutdownPolls)
        const stopping = yield* Effect.forkChild(hypervisor.lxc("pve1", 102, "stop", "alice"))
        yield* eventually(
          Effect.sync(() => (sim.countRequests(shutdownPolls) > 0 ? true : undefined)),
          "a poll of the shutdown task"
        )
        sim.hang(undefined)
        const stopped = yield* Fiber.join(stopping)
        assert.deepInclude(stopped, { message: "container stopped", status: "stopped" })
        assert.match(stopped.task ?? "", /:vzshutdown:102:/)
        // A 403 will be a 403 next time: the wait ends with it.
        sim.fault({ match: taskPolls, status: 403, reason: "Permission check failed (/nodes/pve1, Sys.Audit)" })
        assert.instanceOf(yield* Effect.flip(hypervisor.lxc("pve1", 102, "start", "alice")), ProxmoxAccessDenied)
        const history = yield* events.history({ category: "hypervisor" })
        assert.deepStrictEqual(
          history.filter((e) => e.action.startsWith("lxc_")).map((e) => e.action),
          ["lxc_start", "lxc_stop", "lxc_failed"]
        )
      })
    )
  )

  it.live("LXC: a container deleted while its action runs ends the action at once, not at its deadline", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator({ taskDurationMs: 200 })
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20, timeoutMs: 60_000 }
        })
        const starting = yield* Effect.forkChild(hypervisor.lxc("pve1", 102, "start", "alice"))
        yield* eventually(
          Effect.sync(() => (sim.requests.some((r) => r.method === "POST") ? true : undefined)),
          "the start task"
        )
        sim.removeGuest(102)
        const failed = yield* Effect.flip(Fiber.join(starting))
        assert.instanceOf(failed, ProxmoxFailed)
        assert.match(failed.message, /Configuration file 'nodes\/pve1\/lxc\/102\.conf' does not exist/)
      })
    )
  )

  it.live("LXC restart of a container that stopped just before the reboot starts it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer, {
          lxc: { pollIntervalMs: 20, timeoutMs: 3000 }
        })
        // 102 is stopped, but the restart's status read still saw it running: Proxmox refuses the reboot.
        sim.fault({
          match: /\/lxc\/102\/status\/current$/,
          status: 200,
          reason: "OK",
          body: JSON.stringify({ data: { vmid: 102, type: "lxc", status: "running", name: "db" } }),
          once: true
        })
        const restarted = yield* hypervisor.lxc("pve1", 102, "restart", "alice")
        assert.deepInclude(restarted, { message: "container started (it was not running)", status: "running" })
        assert.match(restarted.task ?? "", /:vzstart:102:/)
        assert.deepStrictEqual(
          sim.requests.filter((r) => r.method === "POST").map((r) => r.path.replace(/^.*\/status\//, "")),
          ["reboot", "start"]
        )
      })
    )
  )

  it.live("a token with privilege separation and no ACL: the missing privileges are reported by name", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const bare = { tokenId: "root@pam!bare", secret: "0f3c2b1a-4d5e-4f60-8a9b-0c1d2e3f4a5b" }
        const sim = yield* simulator({ tokens: [{ ...bare, privsep: true }] })
        const { hypervisor, events } = yield* buildHypervisor(
          { clusters: [withToken(clusterOf(sim), bare.tokenId, bare.secret)] },
          recordingShell().layer
        )
        const event = yield* eventually(
          Effect.map(events.history({ category: "hypervisor" }), (all) => all.find((e) => e.action === "permissions")),
          "the permission report"
        )
        assert.deepStrictEqual(
          (event.data as { missing: ReadonlyArray<{ privilege: string }> }).missing.map((m) => m.privilege),
          ["Sys.Audit", "VM.Audit", "VM.PowerMgmt"]
        )
        // What the report explains: Proxmox answers such a token with silently empty lists.
        assert.deepStrictEqual(yield* hypervisor.guests, [])
      })
    )
  )

  it.live("a cluster unreachable at start is checked for privileges once it answers: one report", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const bare = { tokenId: "root@pam!bare", secret: "0f3c2b1a-4d5e-4f60-8a9b-0c1d2e3f4a5b" }
        const sim = yield* simulator({ tokens: [{ ...bare, privsep: true }] })
        yield* Effect.promise(() => sim.stop())
        // Polled often, so the cluster's recovery is seen within the test's deadline.
        const cluster = withToken(clusterOf(sim, { refreshIntervalMs: 200 }), bare.tokenId, bare.secret)
        const { events } = yield* buildHypervisor({ clusters: [cluster] }, recordingShell().layer)
        const hypervisorEvents = Effect.map(events.history({ category: "hypervisor" }), (all) =>
          all.map((e) => e.action)
        )
        yield* eventually(
          Effect.map(hypervisorEvents, (actions) => (actions.includes("cache_stale") ? true : undefined)),
          "the outage noticed"
        )
        yield* Effect.promise(() => sim.start())
        yield* eventually(
          Effect.map(hypervisorEvents, (actions) => (actions.includes("permissions") ? true : undefined)),
          "the permission report once the cluster answers"
        )
        // Several polls later: still one check that was answered, and one report.
        const polls = sim.countRequests("/cluster/resources")
        yield* eventually(
          Effect.sync(() => (sim.countRequests("/cluster/resources") >= polls + 3 ? true : undefined)),
          "more polls"
        )
        assert.strictEqual(sim.countRequests("/access/permissions"), 1)
        assert.deepStrictEqual(
          (yield* hypervisorEvents).filter((action) => action === "permissions"),
          ["permissions"]
        )
      })
    )
  )

  it.live("the privileges are checked again after each reload of the config file (not of route files)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { events } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer)
        const checks = () => sim.countRequests("/access/permissions")
        yield* eventually(
          Effect.sync(() => (checks() === 1 ? true : undefined)),
          "the check at start"
        )
        yield* events.publish(ConfigEvents.reloaded({ source: "routes", added: ["a"], removed: [], changed: [] }))
        yield* events.publish(
          ConfigEvents.reloaded({
            source: "config",
            file: "gatehouse.yml",
            changed: ["hypervisor"],
            restart_required: []
          })
        )
        yield* eventually(
          Effect.sync(() => (checks() === 2 ? true : undefined)),
          "the check after the reload"
        )
        yield* pause(100)
        assert.strictEqual(checks(), 2, "the route reload did not trigger one")
      })
    )
  )

  it.live("a container deleted and created again under its vmid shows its new addresses at the next refresh", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, recordingShell().layer)
        const ipsOf101 = Effect.map(hypervisor.guests, (guests) => guests.find((g) => g.vmid === 101)?.ips)
        const before = yield* ipsOf101
        assert.include(before ?? [], "10.0.0.101")
        sim.removeGuest(101)
        yield* eventually(
          Effect.map(ipsOf101, (ips) => (ips === undefined ? true : undefined)),
          "101 gone",
          8000
        )
        sim.addGuest({ vmid: 101, node: "pve1", name: "web2", status: "running", ips: ["10.0.0.201/24"] })
        // Listed as soon as it exists, running once pvestatd has written it to the RRD cache.
        yield* Effect.promise(() => sim.sampleRrd())
        // Not the deleted container's addresses until they are next looked up (30 s): it was forgotten with it.
        yield* eventually(
          Effect.map(ipsOf101, (ips) => (ips?.[0] === "10.0.0.201" ? true : undefined)),
          "101's new address",
          8000
        )
      })
    )
  )

  it.live("several clusters: each node is served by its own cluster", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const east = yield* simulator()
        const west = yield* simulator({
          nodes: [{ name: "pve2" }],
          guests: [{ vmid: 201, node: "pve2", name: "cache", status: "running", ips: ["10.1.0.201/24"] }]
        })
        const { hypervisor } = yield* buildHypervisor(
          { clusters: [clusterOf(east, { name: "east" }), clusterOf(west, { name: "west" })] },
          recordingShell().layer
        )
        assert.deepStrictEqual(
          (yield* hypervisor.nodes).map((n) => [n.cluster, n.node]),
          [
            ["east", "pve1"],
            ["west", "pve2"]
          ]
        )
        west.resetRequests()
        assert.strictEqual((yield* hypervisor.nodeStats("pve2")).node, "pve2")
        assert.strictEqual(west.countRequests("/nodes/pve2/status"), 1)
        assert.strictEqual((yield* hypervisor.guestStatsLine("pve2", 201)).split("|")[0], "running")
        // One cluster down: the other keeps answering.
        yield* Effect.promise(() => east.stop())
        assert.strictEqual((yield* hypervisor.nodeStats("pve2")).node, "pve2")
      })
    )
  )

  it.live(
    "journal and tail: bad input, unknown node, stopped container and missing SSH are refused before any command",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const sim = yield* simulator()
          const shell = recordingShell()
          const { hypervisor } = yield* buildHypervisor({ clusters: [clusterOf(sim)] }, shell.layer)
          const bad = yield* Effect.flip(hypervisor.journal({ node: "pve1", services: ["pveproxy;reboot"] }))
          assert.instanceOf(bad, InvalidArgument)
          assert.match(bad.message, /service/)
          const relative = yield* Effect.flip(hypervisor.tail({ node: "pve1", files: ["etc/passwd"] }))
          assert.instanceOf(relative, InvalidArgument)
          assert.instanceOf(yield* Effect.flip(hypervisor.tail({ node: "pve1", files: [] })), InvalidArgument)
          assert.instanceOf(yield* Effect.flip(hypervisor.journal({ node: "nope" })), HypervisorNodeNotFound)
          const stopped = yield* Effect.flip(hypervisor.journal({ node: "pve1", vmid: 102 }))
          assert.instanceOf(stopped, GuestNotRunning)
          assert.strictEqual(stopped.message, "container 102 is not running (status: stopped)")
          assert.instanceOf(yield* Effect.flip(hypervisor.journal({ node: "pve1" })), SshNotConfigured)
          assert.deepStrictEqual(shell.calls, [], "nothing reached the shell")
        })
      )
  )

  it.live("a wrong token: calls fail with ProxmoxAccessDenied naming the cluster; the cache says why it is stale", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const { hypervisor } = yield* buildHypervisor(
          { clusters: [withToken(clusterOf(sim), sim.token.tokenId, "00000000-0000-4000-8000-000000000000")] },
          recordingShell().layer
        )
        const stale = yield* eventually(
          Effect.map(hypervisor.cacheState, (s) => (s[0]?.error !== undefined ? s[0] : undefined)),
          "the failed refresh"
        )
        assert.match(stale.error ?? "", /cluster "sim" refused Gatehouse's credentials/)
        // Not a 404: the cluster that would know the node never answered, and that is the answer.
        const error = yield* Effect.flip(hypervisor.nodeStats("pve1"))
        assert.instanceOf(error, ProxmoxAccessDenied)
        assert.strictEqual(error.cluster, "sim")
      })
    )
  )

  it.live("tail: files outside hypervisor.tail_paths are refused on nodes and in containers, before any command", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const shell = recordingShell(() => ["line"])
        const { cluster } = yield* withSsh(sim)
        const { hypervisor } = yield* buildHypervisor({ clusters: [cluster] }, shell.layer)
        for (const request of [
          { node: "pve1", files: ["/etc/pve/priv/authkey.key"] },
          { node: "pve1", vmid: 101, files: ["/etc/shadow"] },
          { node: "pve1", vmid: 101, files: ["/var/log/syslog", "/root/.ssh/id_rsa"] }
        ]) {
          const refused = yield* Effect.flip(hypervisor.tail(request))
          assert.instanceOf(refused, InvalidArgument)
          assert.match(refused.message, /^invalid file: file must be under \/var\/log \(/)
        }
        assert.deepStrictEqual(shell.calls, [], "nothing reached the shell")
        // hypervisor.tail_paths replaces the default.
        const configured = yield* buildHypervisor({ clusters: [cluster], tailPaths: ["/srv/logs"] }, shell.layer)
        const outside = yield* Effect.flip(configured.hypervisor.tail({ node: "pve1", files: ["/var/log/syslog"] }))
        assert.strictEqual(
          outside.message,
          "invalid file: file must be under /srv/logs (the directories hypervisor.tail_paths allows)"
        )
        const inside = yield* configured.hypervisor.tail({ node: "pve1", files: ["/srv/logs/app.log"] })
        assert.deepStrictEqual(yield* Stream.runCollect(inside), ["line"])
      })
    )
  )

  it.live("tail: one file however it is spelled is followed (and replayed) once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const shell = recordingShell((argv) => (argv[0] === "tail" ? ["a", "b"] : undefined))
        const { cluster } = yield* withSsh(sim)
        const { hypervisor } = yield* buildHypervisor({ clusters: [cluster] }, shell.layer)
        const files = ["/var/log/syslog", "/var/log/./syslog", "//var/log/syslog", "/var//log/syslog/"]
        const lines = yield* hypervisor.tail({ node: "pve1", files, limit: 5 })
        assert.deepStrictEqual(yield* Stream.runCollect(lines), ["a", "b"])
        assert.deepStrictEqual(
          shell.calls.filter((c) => c.argv.length > 0).map((c) => c.argv),
          [["tail", "-n", "5", "-F", "/var/log/syslog"]]
        )
      })
    )
  )

  it.effect("journal of a container: a journald check that never answers fails after 10 s (504), not a hang", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const probes: Array<ReadonlyArray<string>> = []
        // A container that never answers `pct exec` (frozen, a hung mount).
        const hanging = Layer.succeed(NodeShell)(
          NodeShell.of({
            connect: () => Effect.void,
            run: (_target, argv) =>
              Effect.andThen(
                Effect.sync(() => probes.push(argv)),
                Effect.never
              ),
            lines: () => Stream.never,
            stats: Effect.succeed({ connectionsOpened: 0, connectionsOpen: 0, channelsOpen: 0 })
          })
        )
        const { cluster } = yield* withSsh(sim)
        const { hypervisor } = yield* buildHypervisor({ clusters: [cluster] }, hanging)
        const fiber = yield* Effect.forkChild(hypervisor.journal({ node: "pve1", vmid: 101 }))
        yield* eventually(
          Effect.sync(() => (probes.length > 0 ? true : undefined)),
          "the journald check"
        )
        assert.deepStrictEqual(probes, [["pct", "exec", "101", "--", "test", "-d", "/run/systemd/journal"]])
        yield* TestClock.adjust("9 seconds")
        assert.isUndefined(fiber.pollUnsafe(), "still waiting before the bound")
        yield* TestClock.adjust("1 second")
        const exit = yield* eventually(
          Effect.sync(() => fiber.pollUnsafe()),
          "the journal request to fail after the bound"
        )
        assert.isTrue(Exit.isFailure(exit))
        const error = yield* Effect.flip(Fiber.join(fiber))
        // An upstream that did not answer in time: a gateway timeout, not an upstream that answered with an error.
        assert.instanceOf(error, SshTimedOut)
        assert.deepStrictEqual(
          { node: error.node, operation: error.operation, timeout_ms: error.timeout_ms },
          {
            node: "pve1",
            operation: "checking for journald in container 101 (test -d /run/systemd/journal)",
            timeout_ms: 10_000
          }
        )
        assert.strictEqual(
          error.message,
          'SSH to node "pve1": checking for journald in container 101 (test -d /run/systemd/journal) did not ' +
            "finish within 10000 ms"
        )
        const code = errorCodeOf(error)
        assert.deepStrictEqual(
          [code, httpStatusOf(code), grpcStatusOf(code), closeCodeOf(code)],
          ["timeout", 504, 4, 1011]
        )
        // As the API answers it before the upgrade: the 504 body, decoded back into the typed error by a client.
        const wire = Schema.encodeSync(toWireError(SshTimedOut))(error)
        assert.deepStrictEqual(wire.error.code, "timeout")
        assert.instanceOf(Schema.decodeUnknownSync(toWireError(SshTimedOut))(wire), SshTimedOut)
      })
    )
  )

  it.live("a private key ssh2 cannot use stops the start with a config error naming the setting and the file", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const encrypted = ssh2.utils.generateKeyPairSync("ed25519", {
          passphrase: "pw",
          cipher: "aes256-ctr",
          rounds: 16
        })
        for (const [key, why] of [
          [encrypted.private, "the key is encrypted with a passphrase"],
          [parseableKeyPair().public, "a public key, not a private key"],
          ["not a key\n", "not a private key ssh2 can read"]
        ] as const) {
          const { cluster, file } = yield* withSsh(sim, key)
          const error = yield* Effect.flip(buildHypervisor({ clusters: [cluster] }, recordingShell().layer))
          assert.instanceOf(error, SecretUnreadable)
          assert.strictEqual(error.key, "hypervisor.clusters (sim) ssh.private_key")
          assert.strictEqual(error.path, file)
          assert.include(error.message, why)
          assert.include(error.message, file)
          for (const part of key.split("\n").filter((l) => l.length > 20)) assert.notInclude(error.message, part)
        }
      })
    )
  )
})
