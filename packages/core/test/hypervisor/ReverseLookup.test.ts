import { assert, describe, it } from "@effect/vitest"
import type { Guest } from "@gatehouse-edge/contract/domain"
import type { ClusterSnapshot } from "../../src/hypervisor/ResourceCache.js"
import { reverseLookup } from "../../src/hypervisor/ReverseLookup.js"

const guest = (cluster: string, vmid: number, name: string, status: string, ips: ReadonlyArray<string>): Guest => ({
  cluster,
  node: `${cluster}-node`,
  vmid,
  type: "lxc",
  name,
  status,
  cpu_usage_pct: 0,
  mem_used: 0,
  mem_total: 0,
  net_in: 0,
  net_out: 0,
  disk_read: 0,
  disk_write: 0,
  uptime_s: 0,
  ips,
  tags: []
})

const snapshot = (
  cluster: string,
  guests: ReadonlyArray<Guest>,
  nodes: ReadonlyArray<string> = []
): ClusterSnapshot => ({
  cluster,
  nodes: nodes.map((node) => ({ cluster, node, status: "online" })),
  guests,
  loaded: true,
  stale: false,
  refreshedAt: 0,
  failure: undefined
})

const found = (snapshots: ReadonlyArray<ClusterSnapshot>, host: string) => {
  const location = reverseLookup(snapshots, host)
  return location === undefined ? undefined : `${location.cluster}/${location.vmid}/${location.status}`
}

describe("reverseLookup", () => {
  it("prefers a running guest with the address or name, in whichever cluster, over one that does not run", () => {
    const east = snapshot("east", [guest("east", 101, "app", "stopped", ["10.0.0.5"])])
    const west = snapshot("west", [
      guest("west", 201, "other", "stopped", ["10.0.0.5"]),
      guest("west", 202, "app", "running", ["10.0.0.5"])
    ])
    assert.strictEqual(found([east, west], "10.0.0.5"), "west/202/running")
    assert.strictEqual(found([east, west], "APP.example.com"), "west/202/running")
    // None runs: the first that has it (the cache's order: clusters as configured, guests by vmid).
    const quiet = snapshot("west", [guest("west", 201, "app", "stopped", ["10.0.0.5"])])
    assert.strictEqual(found([east, quiet], "10.0.0.5"), "east/101/stopped")
  })

  it("an address before a name, a guest before a node; brackets of an IPv6 address ignored", () => {
    const cluster = snapshot(
      "c",
      [guest("c", 101, "10.0.0.7", "running", []), guest("c", 102, "db", "stopped", ["10.0.0.7", "fd00::7"])],
      ["pve1", "db"]
    )
    assert.strictEqual(found([cluster], "10.0.0.7"), "c/102/stopped")
    assert.strictEqual(found([cluster], "[fd00::7]"), "c/102/stopped")
    assert.strictEqual(found([cluster], "db"), "c/102/stopped")
    assert.strictEqual(found([cluster], "pve1.lan"), "c/0/online")
    assert.isUndefined(found([cluster], "10.9.9.9"))
  })
})
