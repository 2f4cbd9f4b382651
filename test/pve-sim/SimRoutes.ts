import type { Caller } from "./SimAuth.js"
import { type ParamSpec, type Params, PveError, paramError } from "./SimHttp.js"
import { guestInterfaces, guestStats } from "./SimState.js"
import { TaskRegistry, UPID_REGEX } from "./SimTasks.js"
import type { PowerAction, SimWorld } from "./SimWorld.js"

/** PVE version strings the simulator reports. */
export const PVE_VERSION = { version: "8.2.4", release: "8.2", repoid: "faa83925c9641325" } as const

/** A list answer with `total` beside `data`. */
export class Paged {
  constructor(
    readonly data: ReadonlyArray<unknown>,
    readonly total: number
  ) {}
}

/** The journal answer: always gzip'ed and streamed, whatever the client accepts. */
export class JournalStream {
  constructor(readonly lines: ReadonlyArray<string>) {}
}

/** What a route handler gets. */
export interface RouteContext {
  readonly world: SimWorld
  readonly caller: Caller
  readonly path: Readonly<Record<string, string>>
  readonly params: Params
  readonly fingerprint: string
}

/** One API method: a path pattern (`{name}` segments), its query/body schema, and the handler. */
export interface Route {
  readonly method: "GET" | "POST"
  readonly pattern: string
  readonly params: Readonly<Record<string, ParamSpec>>
  readonly handler: (ctx: RouteContext) => Promise<unknown>
}

const check = (caller: Caller, path: string, privilege: string): void => {
  if (!caller.privileges(path).has(privilege))
    throw new PveError(403, `Permission check failed (${path}, ${privilege})`)
}

const vmidOf = (text: string): number => {
  if (!/^[+-]?\d+$/.test(text)) throw paramError({ vmid: `type check ('integer') failed - got '${text}'` })
  const n = Number.parseInt(text, 10)
  if (n < 100) throw paramError({ vmid: "value must have a minimum value of 100" })
  if (n > 999_999_999) throw paramError({ vmid: "value may only be 999999999 or smaller" })
  return n
}

const bool: ParamSpec = { type: "boolean", optional: true }
const optInt = (minimum?: number): ParamSpec =>
  minimum === undefined ? { type: "integer", optional: true } : { type: "integer", optional: true, minimum }

const month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const syslogTime = (ms: number) => {
  const d = new Date(ms)
  const p = (n: number) => String(n).padStart(2, "0")
  return `${month[d.getUTCMonth()]} ${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`
}
const BOOT_ID = "5c1f0d6f4f6d4d2c9a1b8e7f6a5b4c3d"
const cursorOf = (seq: number, timeMs: number) =>
  `s=0f1e2d3c4b5a49788796a5b4c3d2e1f0;i=${seq.toString(16)};b=${BOOT_ID};m=${(timeMs * 1000).toString(16)};t=${(timeMs * 1000).toString(16)};x=${(seq * 2654435761).toString(16).slice(-16).padStart(16, "0")}`
const seqOfCursor = (cursor: string): number | undefined => {
  const m = /(?:^|;)i=([0-9a-f]+)(?:;|$)/.exec(cursor)
  return m === null ? undefined : Number.parseInt(m[1]!, 16)
}

const powerRoute = (action: PowerAction, params: Readonly<Record<string, ParamSpec>>): Route => ({
  method: "POST",
  pattern: `/nodes/{node}/lxc/{vmid}/status/${action}`,
  params,
  handler: async ({ world, caller, path, params: p }) => {
    world.node(path.node!)
    const vmid = vmidOf(path.vmid!)
    check(caller, `/vms/${vmid}`, "VM.PowerMgmt")
    const opts: { timeout?: number; forceStop?: boolean } = {}
    if (typeof p.timeout === "number") opts.timeout = p.timeout
    if (p.forceStop !== undefined) opts.forceStop = p.forceStop === 1
    const task = await world.power(path.node!, vmid, action, caller.tokenid ?? caller.userid, opts)
    return task.upid
  }
})

const taskOf = (world: SimWorld, upid: string) => {
  if (!UPID_REGEX.test(upid)) throw paramError({ upid: "unable to parse worker upid" })
  const task = world.tasks.get(upid)
  if (task === undefined) throw paramError({ upid: "no such task" })
  return task
}

/** The simulated API methods (paths relative to `/api2/json`). */
export const routes: ReadonlyArray<Route> = [
  {
    method: "GET",
    pattern: "/version",
    params: {},
    handler: async () => ({ ...PVE_VERSION })
  },
  {
    method: "GET",
    pattern: "/access/permissions",
    params: { path: { type: "string", optional: true }, userid: { type: "string", optional: true } },
    handler: async ({ caller, params }) => {
      const paths = typeof params.path === "string" ? [params.path] : caller.aclPaths
      const out: Record<string, Record<string, number>> = {}
      for (const p of paths) {
        const privs = caller.privileges(p)
        if (privs.size === 0 && params.path === undefined) continue
        out[p] = Object.fromEntries([...privs].sort().map((x) => [x, 1]))
      }
      return out
    }
  },
  {
    method: "GET",
    pattern: "/nodes",
    params: {},
    handler: async ({ world, caller, fingerprint }) =>
      [...world.nodes.values()].map((n) => {
        const entry: Record<string, unknown> = {
          id: `node/${n.name}`,
          type: "node",
          node: n.name,
          status: n.status,
          level: n.level,
          ssl_fingerprint: fingerprint
        }
        if (n.status === "online" && caller.privileges(`/nodes/${n.name}`).has("Sys.Audit"))
          Object.assign(entry, {
            cpu: n.cpu,
            maxcpu: n.maxcpu,
            mem: n.mem,
            maxmem: n.maxmem,
            disk: n.disk,
            maxdisk: n.maxdisk,
            uptime: n.uptime + Math.floor((world.now() - world.startedMs) / 1000)
          })
        return entry
      })
  },
  {
    method: "GET",
    pattern: "/nodes/{node}/status",
    params: {},
    handler: async ({ world, caller, path }) => {
      const n = world.node(path.node!)
      check(caller, `/nodes/${n.name}`, "Sys.Audit")
      const load = n.cpu * n.maxcpu
      const available = n.maxmem - n.mem
      const kernel = "#1 SMP PREEMPT_DYNAMIC PMX 6.8.12-4 (2024-11-06T15:04Z)"
      return {
        uptime: n.uptime + Math.floor((world.now() - world.startedMs) / 1000),
        idle: 0,
        // Perl hands these over as strings.
        loadavg: [load.toFixed(2), (load * 0.8).toFixed(2), (load * 0.6).toFixed(2)],
        cpu: n.cpu,
        wait: 0.00123,
        kversion: `Linux 6.8.12-4-pve ${kernel}`,
        "current-kernel": { sysname: "Linux", release: "6.8.12-4-pve", version: kernel, machine: "x86_64" },
        "boot-info": { mode: "efi", secureboot: 0 },
        cpuinfo: {
          user_hz: 100,
          vendor: "GenuineIntel",
          family: "6",
          model: n.cpuModel,
          mhz: "2399.998",
          cpus: n.maxcpu,
          sockets: 1,
          cores: Math.max(1, Math.floor(n.maxcpu / 2)),
          flags:
            "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx lm constant_tsc pni vmx ssse3 cx16 sse4_1 sse4_2 x2apic popcnt aes xsave avx hypervisor",
          hvm: "1"
        },
        memory: { total: n.maxmem, free: Math.round(available * 0.6), available, used: n.maxmem - available },
        swap: { total: 8 * 1024 ** 3, free: 8 * 1024 ** 3, used: 0 },
        ksm: { shared: 0 },
        rootfs: {
          total: n.maxdisk,
          avail: Math.max(0, n.maxdisk - n.disk - Math.round(n.maxdisk * 0.05)),
          used: n.disk,
          free: n.maxdisk - n.disk
        },
        pveversion: `pve-manager/${PVE_VERSION.version}/${PVE_VERSION.repoid}`
      }
    }
  },
  {
    method: "GET",
    pattern: "/nodes/{node}/lxc",
    params: {},
    handler: async ({ world, caller, path }) => {
      const n = world.node(path.node!)
      // Guests the caller may not audit are left out silently, as PVE does.
      const visible = [...world.guests.values()].filter(
        (g) => g.spec.node === n.name && caller.privileges(`/vms/${g.spec.vmid}`).has("VM.Audit")
      )
      await world.refreshAll(visible)
      return visible.map((g) => guestStats(g, world.now(), n.maxcpu))
    }
  },
  {
    method: "GET",
    pattern: "/nodes/{node}/lxc/{vmid}/status/current",
    params: {},
    handler: async ({ world, caller, path }) => {
      const n = world.node(path.node!)
      const vmid = vmidOf(path.vmid!)
      check(caller, `/vms/${vmid}`, "VM.Audit")
      const g = world.guestOn(n.name, vmid)
      await world.refresh(g)
      const ha = g.spec.ha === undefined ? { managed: 0 } : { managed: 1, state: g.spec.ha.state }
      return { ...guestStats(g, world.now(), n.maxcpu), ha }
    }
  },
  powerRoute("start", { skiplock: bool, debug: bool }),
  powerRoute("stop", { skiplock: bool, "overrule-shutdown": bool }),
  powerRoute("shutdown", { timeout: optInt(0), forceStop: bool }),
  powerRoute("reboot", { timeout: optInt(0) }),
  {
    method: "GET",
    pattern: "/nodes/{node}/lxc/{vmid}/interfaces",
    params: {},
    handler: async ({ world, caller, path }) => {
      const n = world.node(path.node!)
      const vmid = vmidOf(path.vmid!)
      check(caller, `/vms/${vmid}`, "VM.Audit")
      const g = world.guestOn(n.name, vmid)
      await world.refresh(g)
      return g.status === "running" ? guestInterfaces(g.spec) : null
    }
  },
  {
    method: "GET",
    pattern: "/nodes/{node}/tasks/{upid}/status",
    params: {},
    handler: async ({ world, path }) => {
      world.node(path.node!)
      return TaskRegistry.statusOf(taskOf(world, path.upid!))
    }
  },
  {
    method: "GET",
    pattern: "/nodes/{node}/tasks/{upid}/log",
    params: { start: optInt(0), limit: optInt(0), download: bool },
    handler: async ({ world, path, params }) => {
      world.node(path.node!)
      const task = taskOf(world, path.upid!)
      const start = typeof params.start === "number" ? params.start : 0
      const limit = typeof params.limit === "number" ? params.limit : 50
      const lines = task.log.length === 0 ? ["no content"] : task.log
      const page = lines.slice(start, start + limit).map((t, i) => ({ n: start + i + 1, t }))
      return new Paged(page, lines.length)
    }
  },
  {
    method: "GET",
    pattern: "/nodes/{node}/journal",
    params: {
      lastentries: optInt(0),
      since: optInt(0),
      until: optInt(0),
      startcursor: { type: "string", optional: true },
      endcursor: { type: "string", optional: true }
    },
    handler: async ({ world, caller, path, params }) => {
      const n = world.node(path.node!)
      check(caller, `/nodes/${n.name}`, "Sys.Syslog")
      const conflicts: Record<string, string> = {}
      if (params.lastentries !== undefined && (params.since !== undefined || params.until !== undefined))
        conflicts.lastentries = "property conflicts with 'since'/'until'"
      if (params.since !== undefined && params.startcursor !== undefined)
        conflicts.startcursor = "property conflicts with 'since'"
      if (params.until !== undefined && params.endcursor !== undefined)
        conflicts.endcursor = "property conflicts with 'until'"
      if (Object.keys(conflicts).length > 0) throw paramError(conflicts)
      let entries = world.journal.filter((e) => e.node === n.name)
      if (typeof params.since === "number") entries = entries.filter((e) => e.timeMs >= Number(params.since) * 1000)
      if (typeof params.until === "number") entries = entries.filter((e) => e.timeMs <= Number(params.until) * 1000)
      if (typeof params.startcursor === "string") {
        // The start cursor's own entry is not repeated, so polling with the last cursor yields only new lines.
        const from = seqOfCursor(params.startcursor) ?? 0
        entries = entries.filter((e) => e.seq > from)
      }
      if (typeof params.endcursor === "string") {
        const to = seqOfCursor(params.endcursor) ?? Number.POSITIVE_INFINITY
        entries = entries.filter((e) => e.seq <= to)
      }
      if (typeof params.lastentries === "number") entries = entries.slice(-params.lastentries)
      if (entries.length === 0) return new JournalStream([])
      const first = entries[0]!
      const last = entries.at(-1)!
      return new JournalStream([
        cursorOf(first.seq, first.timeMs),
        ...entries.map((e) => `${syslogTime(e.timeMs)} ${e.node} ${e.ident}[${e.pid}]: ${e.message}`),
        cursorOf(last.seq, last.timeMs)
      ])
    }
  },
  {
    method: "GET",
    pattern: "/cluster/resources",
    params: { type: { type: "string", optional: true, enum: ["vm", "storage", "node", "sdn"] } },
    handler: async ({ world, caller, params }) => {
      const type = params.type
      const out: Array<Record<string, unknown>> = []
      if (type === undefined || type === "vm") {
        const visible = [...world.guests.values()].filter((g) =>
          caller.privileges(`/vms/${g.spec.vmid}`).has("VM.Audit")
        )
        for (const g of visible) {
          const node = world.nodes.get(g.spec.node)
          const id = { id: `lxc/${g.spec.vmid}`, vmid: g.spec.vmid, node: g.spec.node, type: "lxc" }
          // The values are pvestatd's last update (up to an interval old), not the guest's state now; a guest it
          // has not written yet (just created) has none.
          const s = world.rrd.get(g.spec.vmid)
          if (node === undefined || node.status !== "online" || s === undefined) {
            out.push({ ...id, status: "unknown" })
            continue
          }
          const entry: Record<string, unknown> = {
            ...id,
            status: s.status,
            name: s.name,
            uptime: s.uptime,
            template: s.template === 1 ? 1 : 0,
            maxcpu: s.cpus,
            cpu: s.cpu,
            maxmem: s.maxmem,
            mem: s.mem,
            maxdisk: s.maxdisk,
            disk: s.disk,
            netin: s.netin,
            netout: s.netout,
            diskread: s.diskread,
            diskwrite: s.diskwrite
          }
          if (g.spec.tags !== undefined) entry.tags = g.spec.tags
          if (g.spec.lock !== undefined) entry.lock = g.spec.lock
          if (g.spec.ha !== undefined) entry.hastate = g.spec.ha.state
          out.push(entry)
        }
      }
      if (type === undefined || type === "node") {
        for (const n of world.nodes.values()) {
          const entry: Record<string, unknown> = { id: `node/${n.name}`, type: "node", node: n.name, status: n.status }
          if (n.status === "online" && caller.privileges(`/nodes/${n.name}`).has("Sys.Audit"))
            Object.assign(entry, {
              uptime: n.uptime + Math.floor((world.now() - world.startedMs) / 1000),
              cpu: n.cpu,
              maxcpu: n.maxcpu,
              mem: n.mem,
              maxmem: n.maxmem,
              disk: n.disk,
              maxdisk: n.maxdisk,
              "cgroup-mode": 2
            })
          entry.level = n.level
          out.push(entry)
        }
      }
      if (type === undefined || type === "storage") {
        for (const n of world.nodes.values()) {
          const p = caller.privileges("/storage/local")
          if (!p.has("Datastore.Audit") && !p.has("Datastore.AllocateSpace")) continue
          out.push({
            id: `storage/${n.name}/local`,
            storage: "local",
            node: n.name,
            type: "storage",
            plugintype: "dir",
            status: n.status === "online" ? "available" : "unknown",
            shared: 0,
            content: "iso,vztmpl,backup",
            disk: n.disk,
            maxdisk: n.maxdisk
          })
        }
      }
      if (type === undefined || type === "sdn") {
        for (const n of world.nodes.values())
          out.push({ id: `sdn/${n.name}/localnetwork`, type: "sdn", sdn: "localnetwork", node: n.name, status: "ok" })
      }
      return out
    }
  }
]

/** Finds the route for a method and a path relative to `/api2/json`; path parameters are URL-decoded. */
export const matchRoute = (
  method: string,
  relPath: string
): { readonly route: Route; readonly path: Record<string, string> } | undefined => {
  const segments = relPath.split("/").filter((s) => s !== "")
  for (const route of routes) {
    if (route.method !== method) continue
    const pattern = route.pattern.split("/").filter((s) => s !== "")
    if (pattern.length !== segments.length) continue
    const path: Record<string, string> = {}
    let ok = true
    for (let i = 0; i < pattern.length && ok; i++) {
      const p = pattern[i]!
      const s = segments[i]!
      if (p.startsWith("{")) {
        try {
          path[p.slice(1, -1)] = decodeURIComponent(s)
        } catch {
          ok = false
        }
      } else ok = p === s
    }
    if (ok) return { route, path }
  }
  return undefined
}
