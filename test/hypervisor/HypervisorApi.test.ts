import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ProxmoxUnreachable } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { createGatehouseClient } from "../../packages/client/src/index.js"
import { startFakeSshNode } from "../../packages/core/test/hypervisor/FakeSshNode.js"
import { openWs, request } from "../../packages/transport-http/test/support/Http.js"
import { lxcBackend } from "../pve-sim/LxcBackend.js"
import { requireTool } from "../support/e2e.js"
import { lxcHost } from "../support/Lxc.js"
import { parseableKeyPair } from "../support/SshKeys.js"
import { tempDir } from "../support/TempDir.js"
import { waitFor } from "../support/WaitFor.js"
import { hypervisorWorld } from "./HypervisorWorld.js"

// The hypervisor API end to end: the real server composition, its HTTP API and the typed client, against the
// Proxmox VE simulator, a real OpenSSH sshd standing in for node pve1 (with the `pct` and `journalctl` shims), and
// real LXC containers behind both.

const sshd = requireTool("/usr/sbin/sshd")
const lxc = [requireTool("lxc-create"), requireTool("lxc-attach"), requireTool("busybox")]

/** Host processes whose command line contains `marker`. */
const processesMatching = (marker: string) =>
  Effect.promise(
    () =>
      new Promise<ReadonlyArray<string>>((resolve) =>
        execFile("pgrep", ["-f", marker], (_error, stdout) => resolve(stdout.split("\n").filter((l) => l !== "")))
      )
  )

const refusal = (url: string, key: string) => Effect.flip(openWs(url, { key }))

describe("hypervisor API against the simulator", () => {
  it.live("nodes, guests, node stats JSON and the guest stats line, over HTTP and the typed client", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* hypervisorWorld()
        const key = world.server.apiKey
        const nodes = yield* request(world.url("/hypervisor/nodes"), { key })
        assert.strictEqual(nodes.status, 200)
        assert.deepStrictEqual(
          nodes.json.map((n: { node: string; cluster: string }) => [n.cluster, n.node]),
          [["sim", "pve1"]]
        )
        const guests = yield* request(world.url("/hypervisor/guests"), { key })
        assert.deepStrictEqual(
          guests.json.map((g: { vmid: number }) => g.vmid),
          [101, 102]
        )
        const stats = yield* request(world.url("/hypervisor/stats/pve1"), { key })
        assert.strictEqual(stats.status, 200)
        assert.hasAllKeys(stats.json, [
          "node",
          "kernel_version",
          "pve_version",
          "cpu_model",
          "cpu_count",
          "cpu_usage_pct",
          "mem_used",
          "mem_total",
          "mem_pct",
          "rootfs_used",
          "rootfs_total",
          "rootfs_pct",
          "uptime_s",
          "load_avg",
          "timestamp"
        ])
        const line = yield* request(world.url("/hypervisor/stats/pve1/101"), { key })
        assert.strictEqual(line.status, 200)
        assert.match(line.headers.get("content-type") ?? "", /^text\/plain/)
        assert.match(line.text, /^running\|\d+(\.\d)?%\|[^|]+\/512MiB\|\d+\.\d\d%\|[^|]+\/[^|]+\|[^|]+\/[^|]+$/)

        const client = createGatehouseClient({ baseUrl: world.server.origin, apiKey: key })
        yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
        const typed = yield* Effect.promise(() => client.hypervisor.nodeStats("pve1"))
        assert.strictEqual(typed.node, "pve1")
        assert.strictEqual(
          yield* Effect.promise(() => client.hypervisor.guestStats("pve1", 102)),
          "stopped|0.0%|0B/512MiB|0.00%|0B/0B|0B/0B"
        )
        // The WebSocket side: the line as a plain text frame, node stats as JSON frames every second.
        const socket = yield* openWs(world.wsUrl("/hypervisor/stats/pve1/101"), { key })
        assert.match(yield* socket.next(), /^running\|/)
        const frames: Array<{ node: string }> = []
        const iterator = client.hypervisor.watchNodeStats("pve1")[Symbol.asyncIterator]()
        frames.push((yield* Effect.promise(() => iterator.next())).value)
        frames.push((yield* Effect.promise(() => iterator.next())).value)
        yield* Effect.promise(async () => {
          await iterator.return?.()
        })
        assert.deepStrictEqual(
          frames.map((f) => f.node),
          ["pve1", "pve1"]
        )
      })
    )
  )

  it.live(
    "routes without a proxmox field are matched to guests; a stopped container's route is down without a probe",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const world = yield* hypervisorWorld({
            routeFiles: {
              "pve.yml": [
                "web: { host: 10.0.0.101, port: 80, healthcheck: { interval: 1s } }", // by address
                "db: { host: 127.0.0.1, port: 5432, healthcheck: { interval: 1s } }", // by alias (loopback host skipped)
                "pinned: { host: 127.0.0.1, port: 1, proxmox: { node: pve1, vmid: 101 } }",
                "elsewhere: { host: 127.0.0.1, port: 2 }",
                ""
              ].join("\n")
            }
          })
          const key = world.server.apiKey
          const routes = yield* request(world.url("/route/list"), { key })
          const proxmoxOf = (alias: string) =>
            routes.json.find((r: { alias: string }) => r.alias === alias)?.proxmox as unknown
          assert.deepStrictEqual(proxmoxOf("web"), { node: "pve1", vmid: 101 })
          assert.deepStrictEqual(proxmoxOf("db"), { node: "pve1", vmid: 102 })
          assert.deepStrictEqual(proxmoxOf("pinned"), { node: "pve1", vmid: 101 })
          assert.isUndefined(proxmoxOf("elsewhere"))
          const one = yield* request(world.url("/route/web"), { key })
          assert.deepStrictEqual(one.json.proxmox, { node: "pve1", vmid: 101 })
          const db = yield* waitFor(
            Effect.map(request(world.url("/health"), { key }), (r) => r.json.db),
            (h: { status: string; latency_ms: number } | undefined) => h?.status === "unhealthy",
            "db to be reported down"
          )
          assert.strictEqual(db?.latency_ms, 0, "no probe ran")
          // The map carries no detail; the event says why.
          const events = yield* request(world.url("/events?category=health"), { key })
          const down = events.json.find((e: { data: { alias: string } }) => e.data.alias === "db")
          assert.strictEqual(down?.data.error, "container 102 on node pve1 is stopped")
        })
      )
  )

  it.live("bad input: unknown node and vmid 404, malformed vmid and limit 400, no upgrade 426", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* hypervisorWorld()
        const key = world.server.apiKey
        const status = (p: string) => Effect.map(request(world.url(p), { key }), (r) => [r.status, r.json?.error?.code])
        assert.deepStrictEqual(yield* status("/hypervisor/stats/nope"), [404, "not_found"])
        assert.deepStrictEqual(yield* status("/hypervisor/stats/pve1/999"), [404, "not_found"])
        for (const vmid of ["abc", "-1", "1.5", "1e3"]) {
          assert.deepStrictEqual(yield* status(`/hypervisor/stats/pve1/${vmid}`), [400, "invalid_argument"], vmid)
        }
        for (const limit of ["0", "1001", "abc"]) {
          const refused = yield* refusal(world.wsUrl(`/hypervisor/journalctl/pve1?limit=${limit}`), key)
          assert.strictEqual(refused.status, 400, `limit=${limit}`)
        }
        assert.deepStrictEqual(yield* status("/hypervisor/journalctl/pve1"), [426, "upgrade_required"])
        // A POST endpoint: the unknown container is the handler's 404 (a GET would be the router's 405).
        const unknownGuest = yield* request(world.url("/hypervisor/lxc/pve1/999/start"), { key, method: "POST" })
        assert.deepStrictEqual([unknownGuest.status, unknownGuest.json?.error?.code], [404, "not_found"])
        const badAction = yield* request(world.url("/hypervisor/lxc/pve1/101/explode"), { key, method: "POST" })
        assert.strictEqual(badAction.status, 400)
      })
    )
  )

  it.live("Proxmox unreachable: 503 naming the cluster, the server stays up, and recovers when it is back", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* hypervisorWorld()
        const key = world.server.apiKey
        assert.strictEqual((yield* request(world.url("/hypervisor/stats/pve1"), { key })).status, 200)
        const clusters = () => Effect.map(request(world.url("/hypervisor/clusters"), { key }), (reply) => reply.json)
        const fresh = yield* waitFor(clusters(), (list) => list[0]?.stale === false, "a fresh cache")
        assert.deepStrictEqual(Object.keys(fresh[0]), ["cluster", "stale", "refreshed_at"])
        assert.strictEqual(fresh[0].cluster, "sim")
        yield* Effect.promise(() => world.sim.stop())
        const stoppedAt = Date.now()
        const down = yield* request(world.url("/hypervisor/stats/pve1"), { key })
        assert.strictEqual(down.status, 503)
        assert.strictEqual(down.json.error.code, "unavailable")
        assert.match(down.json.error.message, /^Proxmox VE cluster "sim" is unreachable/)
        // The typed client gets this error, not the endpoint's other 503 ("no cluster configured").
        const client = createGatehouseClient({ baseUrl: world.server.origin, apiKey: key })
        yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
        const typed = yield* Effect.promise(() =>
          client.hypervisor.nodeStats("pve1").then(
            () => undefined,
            (error: unknown) => error
          )
        )
        assert.instanceOf(typed, ProxmoxUnreachable)
        assert.strictEqual(typed.cluster, "sim")
        assert.strictEqual((yield* request(world.url("/version"), { key })).status, 200)
        // The cache keeps its last good data meanwhile, and says so: the cluster is stale, since when and why.
        assert.strictEqual((yield* request(world.url("/hypervisor/stats/pve1/101"), { key })).status, 200)
        assert.strictEqual((yield* request(world.url("/hypervisor/nodes"), { key })).status, 200)
        const stale = yield* waitFor(clusters(), (list) => list[0]?.stale === true, "a stale cache")
        // Since the last refresh that worked: not before the one seen fresh, not after the simulator stopped.
        assert.isAtLeast(Date.parse(stale[0].refreshed_at), Date.parse(fresh[0].refreshed_at))
        assert.isAtMost(Date.parse(stale[0].refreshed_at), stoppedAt)
        assert.match(stale[0].error, /^Proxmox VE cluster "sim" is unreachable/)
        assert.deepStrictEqual(yield* Effect.promise(() => client.hypervisor.clusters()), stale)
        yield* Effect.promise(() => world.sim.start())
        assert.strictEqual((yield* request(world.url("/hypervisor/stats/pve1"), { key })).status, 200)
        const recovered = yield* waitFor(clusters(), (list) => list[0]?.stale === false, "a fresh cache again")
        assert.isAbove(Date.parse(recovered[0].refreshed_at), Date.parse(fresh[0].refreshed_at))
        assert.notProperty(recovered[0], "error")
      })
    )
  )

  it.live("Proxmox answering 500 or non-JSON: 502 with Proxmox's words", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* hypervisorWorld()
        const key = world.server.apiKey
        yield* request(world.url("/hypervisor/nodes"), { key })
        world.sim.fault({ match: "/nodes/pve1/status", status: 500, reason: "got timeout" })
        const failed = yield* request(world.url("/hypervisor/stats/pve1"), { key })
        assert.strictEqual(failed.status, 502)
        assert.strictEqual(failed.json.error.message, 'Proxmox VE cluster "sim" answered 500: got timeout')
        world.sim.fault(undefined)
        world.sim.fault({ match: "/nodes/pve1/status", status: 200, reason: "OK", body: "<html>maintenance</html>" })
        const garbage = yield* request(world.url("/hypervisor/stats/pve1"), { key })
        assert.strictEqual(garbage.status, 502)
        assert.match(garbage.json.error.message, /JSON envelope/)
      })
    )
  )

  it.live("a wrong token: 502 naming the cluster, never a 401 to our caller", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* hypervisorWorld({ secret: "00000000-0000-4000-8000-000000000000" })
        const key = world.server.apiKey
        for (const p of ["/hypervisor/stats/pve1", "/hypervisor/stats/pve1/101", "/hypervisor/guests"]) {
          const reply = yield* request(world.url(p), { key })
          assert.strictEqual(reply.status, 502, p)
          assert.match(reply.json.error.message, /^Proxmox VE cluster "sim" refused Gatehouse's credentials/, p)
          assert.notInclude(reply.text, "00000000-0000-4000")
        }
      })
    )
  )
})

describe.skipIf(sshd.skip)("hypervisor commands over a real sshd", () => {
  it.live("dangerous input: every character is a 400 naming the parameter, and nothing reaches the SSH server", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* hypervisorWorld({ ssh: true })
        const key = world.server.apiKey
        const dangerous = [..."&|;$`'\"<>\\(){}*?!~#", " ", "\t", "\n", "\u0001", "\u007f"]
        for (const char of dangerous) {
          const word = encodeURIComponent(`x${char}y`)
          const service = yield* refusal(world.wsUrl(`/hypervisor/journalctl/pve1?service=ok&service=${word}`), key)
          assert.strictEqual(service.status, 400, JSON.stringify(char))
          assert.match(JSON.parse(service.body).error.message, /service/)
          const file = yield* refusal(world.wsUrl(`/hypervisor/tail?node=pve1&file=%2Fvar%2Flog%2F${word}`), key)
          assert.strictEqual(file.status, 400, JSON.stringify(char))
          assert.match(JSON.parse(file.body).error.message, /file/)
        }
        for (const bad of ["..%2F..%2Fetc%2Fshadow", "-n", "relative%2Fpath"]) {
          const file = yield* refusal(world.wsUrl(`/hypervisor/tail?node=pve1&file=${bad}`), key)
          assert.strictEqual(file.status, 400, bad)
        }
        const unit = yield* refusal(world.wsUrl("/hypervisor/journalctl/pve1/0/-u"), key)
        assert.strictEqual(unit.status, 400)
        assert.deepStrictEqual(world.sshd?.execLog(), [], "no command reached the SSH server")
        assert.notMatch(world.sshd?.log() ?? "", /Accepted publickey/, "no SSH session was even opened")
      })
    )
  )

  it.live("tail: a file outside hypervisor.tail_paths (default /var/log) is a 400 for a viewer, before any SSH", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* hypervisorWorld({ ssh: true })
        // What the viewer role holds: reading the hypervisor, no more.
        const created = yield* request(world.url("/apikeys"), {
          key: world.server.apiKey,
          method: "POST",
          contentType: "application/json",
          body: JSON.stringify({ name: "viewer", scopes: ["hypervisor:read"] })
        })
        assert.strictEqual(created.status, 201, created.text)
        const viewer: string = created.json.key
        for (const file of [
          "/etc/pve/priv/authkey.key",
          "/etc/shadow",
          "/root/.ssh/id_rsa",
          "/./etc/shadow",
          "/var/logx"
        ]) {
          const refused = yield* refusal(
            world.wsUrl(`/hypervisor/tail?node=pve1&file=${encodeURIComponent(file)}`),
            viewer
          )
          assert.strictEqual(refused.status, 400, file)
          const error = JSON.parse(refused.body).error
          assert.strictEqual(error.code, "invalid_argument", file)
          assert.strictEqual(
            error.message,
            "invalid file: file must be under /var/log (the directories hypervisor.tail_paths allows)",
            file
          )
        }
        assert.deepStrictEqual(world.sshd?.execLog(), [], "no command reached the SSH server")
        assert.notMatch(world.sshd?.log() ?? "", /Accepted publickey/, "no SSH session was even opened")
      })
    )
  )

  it.live(
    "journal: a WebSocket receives the last lines, then lines appended later; closing ends the remote command",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const world = yield* hypervisorWorld({ ssh: true })
          const key = world.server.apiKey
          const log = path.join(world.journalDir, "node.log")
          fs.writeFileSync(log, "boot 1\nboot 2\nboot 3\n")
          const socket = yield* openWs(world.wsUrl("/hypervisor/journalctl/pve1?limit=2"), { key })
          assert.deepStrictEqual([yield* socket.next(), yield* socket.next()], ["boot 2", "boot 3"])
          fs.appendFileSync(log, "later 1\n")
          assert.strictEqual(yield* socket.next(), "later 1")
          assert.lengthOf(yield* processesMatching(world.journalDir), 1)
          socket.socket.close()
          yield* waitFor(
            processesMatching(world.journalDir),
            (pids) => pids.length === 0,
            "the remote journalctl to exit"
          )
          assert.deepStrictEqual(world.sshd?.execLog(), ["'journalctl' '-f' '-n' '2' '--no-pager'"])

          // One unit, through the typed client's stream (query form, repeatable service).
          fs.writeFileSync(path.join(world.journalDir, "pveproxy.log"), "proxy up\n")
          const client = createGatehouseClient({ baseUrl: world.server.origin, apiKey: key })
          yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
          const iterator = client.hypervisor
            .journal({ node: "pve1", service: ["pveproxy"], limit: 5 })
            [Symbol.asyncIterator]()
          assert.strictEqual((yield* Effect.promise(() => iterator.next())).value, "proxy up")
          yield* Effect.promise(async () => {
            await iterator.return?.()
          })
        })
      )
  )

  it.live("a host key other than the pinned one: 502 before the upgrade, and Gatehouse never authenticates", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const other = parseableKeyPair().public.trim().split(/\s+/).slice(0, 2).join(" ")
        const world = yield* hypervisorWorld({ ssh: true, hostKey: other })
        fs.writeFileSync(path.join(world.journalDir, "node.log"), "secret line\n")
        const refused = yield* refusal(world.wsUrl("/hypervisor/journalctl/pve1"), world.server.apiKey)
        assert.strictEqual(refused.status, 502)
        assert.match(JSON.parse(refused.body).error.message, /host key of node "pve1" does not match the pinned key/)
        assert.deepStrictEqual(world.sshd?.execLog(), [])
        assert.notMatch(world.sshd?.log() ?? "", /Accepted publickey/)
      })
    )
  )
})

describe("hypervisor commands on an in-process SSH node", () => {
  it.live(
    "watchers of the same journal share one SSH channel; a late one gets the last lines; the last leaving closes it",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const node = yield* startFakeSshNode
          let emit: ((line: string) => void) | undefined
          node.on(
            (command) => command.includes("journalctl"),
            (exec) => {
              exec.write("old 1\nold 2\nold 3\n")
              emit = (line) => exec.write(`${line}\n`)
            }
          )
          const world = yield* hypervisorWorld({ fakeNode: node })
          const key = world.server.apiKey
          const url = world.wsUrl("/hypervisor/journalctl/pve1?limit=2")
          const first = yield* openWs(url, { key })
          assert.deepStrictEqual(
            [yield* first.next(), yield* first.next(), yield* first.next()],
            ["old 1", "old 2", "old 3"]
          )
          const others = yield* Effect.forEach(Array.from({ length: 9 }), () => openWs(url, { key }))
          // A late watcher starts with the last `limit` lines, as its own `journalctl -n 2` would have.
          for (const other of others)
            assert.deepStrictEqual([yield* other.next(), yield* other.next()], ["old 2", "old 3"])
          emit?.("new 1")
          for (const socket of [first, ...others]) assert.strictEqual(yield* socket.next(), "new 1")
          assert.strictEqual(node.commands.length, 1, "one remote command for ten watchers")
          assert.strictEqual(node.signedIn(), 1)
          assert.strictEqual(node.openChannels(), 1)
          for (const socket of [first, ...others]) socket.socket.close()
          yield* waitFor(
            Effect.sync(() => node.openChannels()),
            (n) => n === 0,
            "the shared channel to close"
          )
          assert.strictEqual(node.closedByClient(), 1)
        })
      )
  )

  it.live("the stream closes with 1011 and the reason", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const node = yield* startFakeSshNode
        node.on(
          (command) => command.includes("journalctl"),
          (exec) => exec.write("first line\n")
        )
        const world = yield* hypervisorWorld({ fakeNode: node })
        const socket = yield* openWs(world.wsUrl("/hypervisor/journalctl/pve1"), { key: world.server.apiKey })
        assert.strictEqual(yield* socket.next(), "first line")
        node.dropConnections()
        const closed = yield* Effect.promise(() => socket.closed)
        assert.strictEqual(closed.code, 1011)
        assert.match(closed.reason, /SSH to node "pve1": connection lost/)
      })
    )
  )
})

describe.skipIf(sshd.skip || lxc.some((t) => t.skip))("hypervisor with real LXC containers", () => {
  it.live(
    "tail of a file inside a container; start/stop/restart through the simulator; a stopped container is refused",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const base = yield* tempDir("gatehouse-lxc-")
          const host = yield* lxcHost(base)
          yield* host.create(301)
          yield* host.start(301)
          const world = yield* hypervisorWorld({
            ssh: true,
            lxcPath: host.path,
            sim: {
              guests: [{ vmid: 301, node: "pve1", name: "app", status: "running" }],
              backend: lxcBackend({ lxcPath: host.path })
            }
          })
          const key = world.server.apiKey
          // Under /var/log: hypervisor.tail_paths (default /var/log) applies inside containers too.
          yield* host.attach(301, ["sh", "-c", "echo 'app 1' > /var/log/app.log"])
          const tail = yield* openWs(
            world.wsUrl("/hypervisor/tail?node=pve1&vmid=301&file=%2Fvar%2Flog%2Fapp.log&limit=5"),
            { key }
          )
          assert.strictEqual(yield* tail.next(), "app 1")
          yield* host.attach(301, ["sh", "-c", "echo 'app 2' >> /var/log/app.log"])
          assert.strictEqual(yield* tail.next(), "app 2")
          tail.socket.close()
          assert.include(world.sshd?.execLog() ?? [], "'pct' 'exec' '301' '--' 'tail' '-n' '5' '-F' '/var/log/app.log'")

          // The container has no journald: its journal is /var/log/messages.
          yield* host.attach(301, ["sh", "-c", "echo 'kernel: hello' > /var/log/messages"])
          const journal = yield* openWs(world.wsUrl("/hypervisor/journalctl/pve1/301?limit=3"), { key })
          assert.strictEqual(yield* journal.next(), "kernel: hello")
          journal.socket.close()

          const client = createGatehouseClient({ baseUrl: world.server.origin, apiKey: key })
          yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
          const lxcAction = (action: "start" | "stop" | "restart") =>
            Effect.promise(() => client.hypervisor.lxc("pve1", 301, action))
          const stopped = yield* lxcAction("stop")
          assert.strictEqual(stopped.message, "container stopped")
          assert.strictEqual(yield* host.state(301), "STOPPED")
          const refused = yield* refusal(
            world.wsUrl("/hypervisor/tail?node=pve1&vmid=301&file=%2Fvar%2Flog%2Fapp.log"),
            key
          )
          assert.strictEqual(refused.status, 409)
          assert.strictEqual(JSON.parse(refused.body).error.message, "container 301 is not running (status: stopped)")
          assert.deepStrictEqual(yield* lxcAction("stop"), { message: "container already stopped", status: "stopped" })
          const started = yield* lxcAction("start")
          assert.strictEqual(started.message, "container started")
          assert.strictEqual(yield* host.state(301), "RUNNING")
          const restarted = yield* lxcAction("restart")
          assert.strictEqual(restarted.message, "container restarted")
          assert.strictEqual(yield* host.state(301), "RUNNING")
          const events = yield* request(world.url("/events?category=hypervisor"), { key })
          assert.includeMembers(
            events.json.map((e: { action: string }) => e.action),
            ["lxc_stop", "lxc_start", "lxc_restart"]
          )
        })
      )
  )
})
