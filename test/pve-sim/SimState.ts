import type { GuestPowerState } from "./GuestBackend.js"

/** A simulated cluster node. Byte sizes are bytes. */
export interface SimNode {
  readonly name: string
  readonly status?: "online" | "offline"
  readonly maxcpu?: number
  readonly maxmem?: number
  readonly maxdisk?: number
  /** Fraction 0..1 of all node CPUs in use. */
  readonly cpu?: number
  readonly mem?: number
  readonly disk?: number
  readonly uptime?: number
  readonly level?: string
  readonly cpuModel?: string
}

/** A simulated LXC guest. */
export interface SimGuest {
  readonly vmid: number
  readonly node: string
  readonly name: string
  readonly type?: "lxc"
  readonly status: GuestPowerState
  readonly maxmem?: number
  readonly maxswap?: number
  readonly maxdisk?: number
  readonly cpus?: number
  /** Addresses of eth0 with prefix, e.g. `10.0.0.5/24` or `fd00::5/64`. */
  readonly ips?: ReadonlyArray<string>
  /** `tag1;tag2`, as PVE stores them. */
  readonly tags?: string
  readonly template?: boolean
  readonly lock?: string
  /** Set when the guest is HA-managed (its `ha.state`, e.g. `started`). */
  readonly ha?: { readonly state: string }
}

/** The defaults: one node `pve1` with a running `web` (101) and a stopped `db` (102). */
export const defaultNodes: ReadonlyArray<SimNode> = [{ name: "pve1" }]
export const defaultGuests: ReadonlyArray<SimGuest> = [
  { vmid: 101, node: "pve1", name: "web", status: "running", ips: ["10.0.0.101/24"], tags: "prod;web" },
  { vmid: 102, node: "pve1", name: "db", status: "stopped", ips: ["10.0.0.102/24"] }
]

const GiB = 1024 ** 3
const MiB = 1024 ** 2

/** A node with every optional field filled in. */
export interface NodeState extends Required<SimNode> {}

export const nodeState = (spec: SimNode): NodeState => ({
  status: "online",
  maxcpu: 8,
  maxmem: 32 * GiB,
  maxdisk: 100 * GiB,
  cpu: 0.0425,
  mem: 9 * GiB,
  disk: 21 * GiB,
  uptime: 3 * 86_400,
  level: "",
  cpuModel: "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
  ...spec
})

/** A guest plus what the simulator tracks about it. */
export interface GuestState {
  spec: SimGuest
  /** Last known power state (refreshed from the backend). */
  status: GuestPowerState
  /** Clock value (ms) when it was last seen starting; uptime and counters derive from it. */
  startedAt: number
  /** `performance.now()` of the last backend refresh. */
  checkedAt: number
}

/** The per-guest stats of `PVE::LXC::vmstatus`, deterministic and growing with uptime while running. */
export const guestStats = (g: GuestState, nowMs: number, hostCpus: number): Record<string, unknown> => {
  const s = g.spec
  const maxmem = s.maxmem ?? 512 * MiB
  const maxdisk = s.maxdisk ?? 4 * GiB
  const running = g.status === "running"
  const uptime = running ? Math.max(0, Math.floor((nowMs - g.startedAt) / 1000)) : 0
  const base: Record<string, unknown> = {
    vmid: s.vmid,
    type: "lxc",
    status: g.status,
    name: s.name,
    cpus: s.cpus ?? hostCpus,
    cpu: running ? 0.01 + ((s.vmid * 37 + uptime) % 50) / 1000 : 0,
    mem: running ? Math.round(maxmem * 0.2) + s.vmid * 4096 : 0,
    swap: 0,
    maxmem,
    maxswap: s.maxswap ?? 0,
    disk: running ? Math.round(maxdisk * 0.3) : 0,
    maxdisk,
    netin: running ? 4096 + uptime * 2048 + s.vmid : 0,
    netout: running ? 2048 + uptime * 1024 + s.vmid : 0,
    diskread: running ? 1_000_000 + uptime * 4096 : 0,
    diskwrite: running ? 500_000 + uptime * 8192 : 0,
    uptime
  }
  if (running) base.pid = 100_000 + s.vmid * 7
  if (s.template === true) base.template = 1
  if (s.lock !== undefined) base.lock = s.lock
  if (s.tags !== undefined) base.tags = s.tags
  return base
}

/** A stable locally administered MAC for a guest (Proxmox's own OUI prefix, as PVE generates). */
export const guestMac = (vmid: number): string => {
  const b = [(vmid >> 16) & 0xff, (vmid >> 8) & 0xff, vmid & 0xff].map((n) => n.toString(16).padStart(2, "0"))
  return `bc:24:11:${b.join(":")}`
}

const linkLocal = (mac: string): string => {
  const b = mac.split(":").map((h) => Number.parseInt(h, 16))
  b[0] = b[0]! ^ 2
  const h = (x: number, y: number) => ((x << 8) | y).toString(16)
  return `fe80::${h(b[0]!, b[1]!)}:${h(b[2]!, 0xff)}:${h(0xfe, b[3]!)}:${h(b[4]!, b[5]!)}/64`
}

/** The `/interfaces` answer for a running guest: `lo` and `eth0` as `ip --json a` yields them. */
export const guestInterfaces = (spec: SimGuest): ReadonlyArray<Record<string, unknown>> => {
  const iface = (name: string, mac: string, addrs: ReadonlyArray<string>) => {
    const entries = addrs.map((a) => {
      const [ip, prefix] = a.split("/")
      return { "ip-address-type": ip!.includes(":") ? "inet6" : "inet", "ip-address": ip!, prefix: Number(prefix) }
    })
    const out: Record<string, unknown> = { name, hwaddr: mac, "hardware-address": mac }
    // The legacy fields keep only the LAST address of each family.
    const last4 = addrs.filter((a) => !a.includes(":")).at(-1)
    const last6 = addrs.filter((a) => a.includes(":")).at(-1)
    if (last4 !== undefined) out.inet = last4
    if (last6 !== undefined) out.inet6 = last6
    out["ip-addresses"] = entries
    return out
  }
  const mac = guestMac(spec.vmid)
  return [
    iface("lo", "00:00:00:00:00:00", ["127.0.0.1/8", "::1/128"]),
    iface("eth0", mac, [...(spec.ips ?? []), linkLocal(mac)])
  ]
}
