import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { nodeStatsOf } from "../../src/hypervisor/NodeStatsOf.js"
import { PveClusterResources, PveInterfaces, PveNodeStatus } from "../../src/hypervisor/PveSchemas.js"

// Shapes from reference/pve-api.md §4, §8, §9: numbers that Perl sends as strings included.
const nodeStatus = {
  uptime: 86400,
  idle: 0,
  loadavg: ["0.15", "0.10", "0.05"],
  cpu: 0.0523,
  wait: 0.001,
  kversion: "Linux 6.8.12-4-pve #1 SMP PREEMPT_DYNAMIC PMX 6.8.12-4 (2024-11-06T15:04Z)",
  "current-kernel": { sysname: "Linux", release: "6.8.12-4-pve", version: "#1 SMP", machine: "x86_64" },
  "boot-info": { mode: "efi", secureboot: 0 },
  cpuinfo: {
    user_hz: 100,
    vendor: "GenuineIntel",
    family: "6",
    model: "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
    mhz: "2399.998",
    cpus: 8,
    sockets: 1,
    cores: 4,
    flags: "fpu vme",
    hvm: "1"
  },
  memory: { total: 16 * 1024 ** 3, free: 4 * 1024 ** 3, available: 8 * 1024 ** 3, used: 8 * 1024 ** 3 },
  swap: { total: 0, free: 0, used: 0 },
  ksm: { shared: 0 },
  rootfs: { total: 100 * 1024 ** 3, avail: 70 * 1024 ** 3, used: 25 * 1024 ** 3, free: 75 * 1024 ** 3 },
  pveversion: "pve-manager/8.2.4/faa83925c9641325"
}

describe("Proxmox answers", () => {
  it("turns /nodes/{node}/status into NodeStats (load averages sent as strings)", () => {
    const status = Schema.decodeUnknownSync(PveNodeStatus)(nodeStatus)
    expect(nodeStatsOf("pve1", status, "2026-11-24T10:00:00.000Z")).toEqual({
      node: "pve1",
      kernel_version: "6.8.12-4-pve",
      pve_version: "8.2.4",
      cpu_model: "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
      cpu_count: 8,
      cpu_usage_pct: 5.23,
      mem_used: 8 * 1024 ** 3,
      mem_total: 16 * 1024 ** 3,
      mem_pct: 50,
      rootfs_used: 25 * 1024 ** 3,
      rootfs_total: 100 * 1024 ** 3,
      rootfs_pct: 25,
      uptime_s: 86400,
      load_avg: [0.15, 0.1, 0.05],
      timestamp: "2026-11-24T10:00:00.000Z"
    })
  })

  it("refuses a load average that is not a number, naming the field", () => {
    expect(() => Schema.decodeUnknownSync(PveNodeStatus)({ ...nodeStatus, loadavg: ["high", "0", "0"] })).toThrow(
      /loadavg/
    )
  })

  it("reads every kind of /cluster/resources entry, numbers as numbers or strings", () => {
    const resources = Schema.decodeUnknownSync(PveClusterResources)([
      {
        id: "node/pve1",
        type: "node",
        node: "pve1",
        status: "online",
        cpu: 0.1,
        maxcpu: 8,
        "cgroup-mode": 2,
        level: ""
      },
      { id: "lxc/101", type: "lxc", vmid: "101", node: "pve1", status: "running", name: "web", maxmem: "536870912" },
      { id: "storage/pve1/local", type: "storage", storage: "local", node: "pve1", status: "available", shared: 0 },
      { id: "/pool/dev", type: "pool", pool: "dev" }
    ])
    expect(resources.map((r) => [r.type, r.vmid, r.maxmem])).toEqual([
      ["node", undefined, undefined],
      ["lxc", 101, 536870912],
      ["storage", undefined, undefined],
      ["pool", undefined, undefined]
    ])
  })

  it("reads interfaces (null when the container is stopped)", () => {
    expect(Schema.decodeUnknownSync(PveInterfaces)(null)).toBeNull()
    const interfaces = Schema.decodeUnknownSync(PveInterfaces)([
      { name: "lo", hwaddr: "00:00:00:00:00:00", inet: "127.0.0.1/8" },
      {
        name: "eth0",
        hwaddr: "bc:24:11:aa:bb:cc",
        "hardware-address": "bc:24:11:aa:bb:cc",
        inet: "10.0.0.5/24",
        "ip-addresses": [{ "ip-address-type": "inet", "ip-address": "10.0.0.5", prefix: 24 }]
      }
    ])
    expect(interfaces?.[1]?.["ip-addresses"]?.[0]?.["ip-address"]).toBe("10.0.0.5")
  })
})
