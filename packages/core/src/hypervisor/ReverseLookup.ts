import type { Guest } from "@gatehouse-edge/contract/domain"
import type { GuestLocation } from "./GuestLocator.js"
import type { ClusterSnapshot } from "./ResourceCache.js"

// An address or a name can outlive its guest's run: a stopped container keeps its last addresses while DHCP gives
// them to another, a container rebuilt under a new vmid leaves its predecessor behind under the same name. The
// guest that runs now is the one a route reaches, in whichever cluster; a guest that does not run only when none does.
const preferRunning = (matches: ReadonlyArray<Guest>): Guest | undefined =>
  matches.find((g) => g.status === "running") ?? matches[0]

/**
 * The guest or node of the caches whose address, name or node name is `host` (SPEC §2's reverse lookup): an address
 * first, then a guest's name (the host's first label too, `web` for `web.example.com`), then a node's name. Among
 * guests that match, a running one wins over the others, whatever their clusters and vmids.
 */
export const reverseLookup = (snapshots: ReadonlyArray<ClusterSnapshot>, host: string): GuestLocation | undefined => {
  const wanted = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
  const label = wanted.split(".")[0] ?? wanted
  const named = (name: string) => {
    const lower = name.toLowerCase()
    return lower === wanted || lower === label
  }
  const guests = snapshots.flatMap((s) => s.guests)
  const guest =
    preferRunning(guests.filter((g) => g.ips.includes(wanted))) ?? preferRunning(guests.filter((g) => named(g.name)))
  if (guest !== undefined) return { cluster: guest.cluster, node: guest.node, vmid: guest.vmid, status: guest.status }
  for (const snapshot of snapshots) {
    const node = snapshot.nodes.find((n) => named(n.node))
    if (node !== undefined) return { cluster: snapshot.cluster, node: node.node, vmid: 0, status: node.status }
  }
  return undefined
}
