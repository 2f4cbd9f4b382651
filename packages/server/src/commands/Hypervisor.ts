import type { ClusterCacheState, Guest, HypervisorNode, LxcAction, NodeStats } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { print } from "./AuthOutput.js"
import { longCallTimeoutMs } from "./CallTimeouts.js"
import { untilCtrlC } from "./Following.js"
import { httpFlags, printLines, withClient } from "./HttpConnection.js"
import { followOptions, reconnectFlag } from "./Reconnecting.js"

/** The fields of a container's stats line (`STATUS|CPU%|MEM USAGE/LIMIT|MEM%|NET I/O|BLOCK I/O`), named for `--json`. */
const guestStatsFields = (line: string) => {
  const [status, cpu, memory, memory_percent, net_io, block_io] = line.split("|")
  return { status, cpu, memory, memory_percent, net_io, block_io }
}
const node = Argument.String("node").pipe(Argument.withDescription("The Proxmox VE node"))
const vmid = Argument.Int("vmid").pipe(Argument.withDescription("The container's id"))
const optionalVmid = vmid.pipe(
  Argument.withDescription("A container's id (omit for the node itself)"),
  Argument.optional
)
const limit = Flag.Int("limit").pipe(Flag.withDescription("Initial lines, 1–1000 (default 100)"), Flag.optional)

const percent = (value: number) => `${value.toFixed(1)}%`

const formatNodeStats = (s: NodeStats): ReadonlyArray<string> => [
  `${s.node}  pve ${s.pve_version}  kernel ${s.kernel_version}  up ${s.uptime_s}s`,
  `cpu ${percent(s.cpu_usage_pct)} of ${s.cpu_count} (${s.cpu_model})  load ${s.load_avg.join(" ")}`,
  `mem ${s.mem_used}/${s.mem_total} B (${percent(s.mem_pct)})  rootfs ${s.rootfs_used}/${s.rootfs_total} B (${percent(s.rootfs_pct)})`
]

const formatNode = (n: HypervisorNode) =>
  `${n.cluster.padEnd(10)}  ${n.node.padEnd(12)}  ${n.status.padEnd(8)}  ${n.cpu_usage_pct === undefined ? "" : `cpu ${percent(n.cpu_usage_pct)}`}`

const formatGuest = (g: Guest) =>
  `${String(g.vmid).padStart(6)}  ${g.type}  ${g.node.padEnd(10)}  ${g.status.padEnd(8)}  ${g.name}${g.ips.length === 0 ? "" : `  ${g.ips.join(", ")}`}`

const formatCluster = (c: ClusterCacheState) =>
  `${c.cluster.padEnd(10)}  ${c.stale ? "stale" : "fresh"}  ${c.refreshed_at === undefined ? "never refreshed" : `refreshed ${c.refreshed_at}`}${c.error === undefined ? "" : `  ${c.error}`}`

const clusters = Command.make(
  "clusters",
  httpFlags,
  Effect.fn("gatehouse.hypervisor.clusters")(function* (flags) {
    const all = yield* withClient(flags, (c) => c.hypervisor.clusters())
    yield* print(flags.json, all, (list) => list.map(formatCluster))
  })
).pipe(
  Command.withDescription("Each configured Proxmox VE cluster: fresh, or stale since its last good refresh and why")
)

const nodes = Command.make(
  "nodes",
  httpFlags,
  Effect.fn("gatehouse.hypervisor.nodes")(function* (flags) {
    const all = yield* withClient(flags, (c) => c.hypervisor.nodes())
    yield* print(flags.json, all, (list) => (list.length === 0 ? ["no nodes"] : list.map(formatNode)))
  })
).pipe(Command.withDescription("List the nodes of every configured Proxmox VE cluster"))

const guests = Command.make(
  "guests",
  httpFlags,
  Effect.fn("gatehouse.hypervisor.guests")(function* (flags) {
    const all = yield* withClient(flags, (c) => c.hypervisor.guests())
    yield* print(flags.json, all, (list) => (list.length === 0 ? ["no guests"] : list.map(formatGuest)))
  })
).pipe(Command.withDescription("List the LXC containers and VMs of every configured cluster"))

const stats = Command.make(
  "stats",
  {
    ...httpFlags,
    node,
    vmid: optionalVmid,
    watch: Flag.Boolean("watch").pipe(
      Flag.withDescription("Print again every second until Ctrl-C"),
      Flag.withDefault(false)
    ),
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.hypervisor.stats")(function* (flags) {
    const guest = Option.getOrUndefined(flags.vmid)
    const following = followOptions(flags.reconnect)
    yield* withClient(flags, (c) => {
      if (guest !== undefined && guest !== 0) {
        const showLine = (line: string) =>
          flags.json ? print(true, guestStatsFields(line), () => []) : Console.log(line)
        return flags.watch
          ? untilCtrlC(Stream.runForEach(c.hypervisor.watchGuestStats(flags.node, guest, following), showLine))
          : Effect.flatMap(c.hypervisor.guestStats({ params: { node: flags.node, vmid: guest } }), showLine)
      }
      const show = (s: NodeStats) => print(flags.json, s, formatNodeStats)
      return flags.watch
        ? untilCtrlC(Stream.runForEach(c.hypervisor.watchNodeStats(flags.node, following), show))
        : Effect.flatMap(c.hypervisor.nodeStats({ params: { node: flags.node } }), show)
    })
  })
).pipe(
  Command.withDescription(
    "A node's stats, or a container's line STATUS|CPU%|MEM USAGE/LIMIT|MEM%|NET I/O|BLOCK I/O (--watch: every second)"
  )
)

const journal = Command.make(
  "journal",
  {
    ...httpFlags,
    node,
    vmid: optionalVmid,
    service: Flag.String("service").pipe(Flag.withDescription("A systemd unit (repeatable)"), Flag.atLeast(0)),
    limit,
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.hypervisor.journal")(function* (flags) {
    yield* withClient(flags, (c) =>
      printLines(
        c.hypervisor.journal(
          {
            node: flags.node,
            ...(Option.isSome(flags.vmid) ? { vmid: flags.vmid.value } : {}),
            ...(flags.service.length > 0 ? { service: flags.service } : {}),
            ...(Option.isSome(flags.limit) ? { limit: flags.limit.value } : {})
          },
          followOptions(flags.reconnect)
        )
      )
    )
  })
).pipe(Command.withDescription("Follow the journal of a node or a container (over SSH); Ctrl-C stops"))

const tail = Command.make(
  "tail",
  {
    ...httpFlags,
    node,
    vmid: optionalVmid,
    file: Flag.String("file").pipe(Flag.withDescription("An absolute path (repeatable)"), Flag.atLeast(1)),
    limit,
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.hypervisor.tail")(function* (flags) {
    yield* withClient(flags, (c) =>
      printLines(
        c.hypervisor.tail(
          {
            node: flags.node,
            file: flags.file,
            ...(Option.isSome(flags.vmid) ? { vmid: flags.vmid.value } : {}),
            ...(Option.isSome(flags.limit) ? { limit: flags.limit.value } : {})
          },
          followOptions(flags.reconnect)
        )
      )
    )
  })
).pipe(Command.withDescription("Follow files on a node or in a container (tail -F over SSH); Ctrl-C stops"))

const power = (action: LxcAction, description: string) =>
  Command.make(
    action,
    { ...httpFlags, node, vmid },
    Effect.fn(`gatehouse.hypervisor.${action}`)(function* (flags) {
      // The server answers once Proxmox's task is done and the container is in its new state.
      const result = yield* withClient(
        flags,
        (c) => c.hypervisor.lxc({ params: { node: flags.node, vmid: flags.vmid, action } }),
        { answerWithinMs: longCallTimeoutMs }
      )
      yield* print(
        flags.json,
        result,
        (r) => `${r.message} (${r.status})${r.task === undefined ? "" : `  task ${r.task}`}`
      )
    })
  ).pipe(Command.withDescription(description))

/** `gatehouse hypervisor ...`: Proxmox VE nodes and LXC containers over the HTTP API. */
export const hypervisorCommand = Command.make("hypervisor").pipe(
  Command.withDescription(
    "Proxmox VE: clusters, nodes, guests, stats, journal, tail, LXC start/stop/restart (over HTTP)"
  ),
  Command.withSubcommands([
    clusters,
    nodes,
    guests,
    stats,
    journal,
    tail,
    power("start", "Start an LXC container and wait until it runs"),
    power("stop", "Shut an LXC container down gracefully (stopped after the timeout) and wait until it is stopped"),
    power("restart", "Restart an LXC container (start it if stopped) and wait until it runs")
  ])
)
