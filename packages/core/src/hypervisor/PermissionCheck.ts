import type { PvePermissions } from "./PveSchemas.js"

/** A privilege a feature needs, on the ACL path it is checked at (PVE 8 and PVE 9 alike). */
export interface RequiredPrivilege {
  readonly path: string
  readonly privilege: string
  readonly neededFor: string
}

/**
 * What Gatehouse asks of Proxmox, by feature. The same on PVE 8 and 9: nothing here needs `VM.Monitor` (which PVE 9
 * removed). Journals and files are read over SSH, so `Sys.Syslog` is not needed. The README lists these.
 */
export const requiredPrivileges: ReadonlyArray<RequiredPrivilege> = [
  {
    path: "/nodes",
    privilege: "Sys.Audit",
    neededFor: "node list and node stats (/hypervisor/nodes, /hypervisor/stats/{node})"
  },
  {
    path: "/vms",
    privilege: "VM.Audit",
    neededFor:
      "guest list, guest stats and container addresses (/hypervisor/guests, /hypervisor/stats/{node}/{vmid}, reverse lookup)"
  },
  { path: "/vms", privilege: "VM.PowerMgmt", neededFor: "LXC start/stop/restart (/hypervisor/lxc/...)" }
]

const isWithin = (path: string, ancestor: string): boolean =>
  ancestor === "/" || path === ancestor || path.startsWith(`${ancestor}/`)

/**
 * The required privileges that `permissions` (the answer of `GET /access/permissions`) grants nowhere: not on the
 * path, not inherited from an ancestor that propagates, and not on any path below it (a grant on `/vms/101` only
 * is partial but deliberate, so it is not reported). A token with privilege separation and no ACL of its own lacks
 * all of them — Proxmox then answers lists silently empty, which is why this check exists.
 */
export const missingPrivileges = (permissions: PvePermissions): ReadonlyArray<RequiredPrivilege> =>
  requiredPrivileges.filter(({ path, privilege }) => {
    const granted = Object.entries(permissions).some(([aclPath, privileges]) => {
      const value = privileges[privilege]
      if (value === undefined || value === 0 || value === "0") return false
      // Listed on the path itself or below it, or on an ancestor (the answer lists effective privileges per path).
      return isWithin(aclPath, path) || isWithin(path, aclPath)
    })
    return !granted
  })
