import type { GuestBackend, GuestPowerState } from "./GuestBackend.js"
import { MemoryBackend } from "./GuestBackend.js"
import { PveError } from "./SimHttp.js"
import { type GuestState, guestStats, type NodeState, nodeState, type SimGuest, type SimNode } from "./SimState.js"
import { type SimTask, TaskRegistry } from "./SimTasks.js"

/** A power action of `POST …/lxc/{vmid}/status/{action}`. */
export type PowerAction = "start" | "stop" | "shutdown" | "reboot"

/** One syslog line of a node (for `/nodes/{node}/journal`). */
export interface JournalEntry {
  readonly seq: number
  readonly timeMs: number
  readonly node: string
  readonly ident: string
  readonly pid: number
  readonly message: string
}

// Backend status is re-read at most this often per guest: cheap enough for LXC (one lxc-info per guest), and
// every power task refreshes it directly, so `status/current` never lags behind the simulator's own actions
// (`/cluster/resources` does, by design: it reports the RRD cache).
const STATUS_TTL_MS = 250

const TASK_TYPES: Record<PowerAction, string> = {
  start: "vzstart",
  stop: "vzstop",
  shutdown: "vzshutdown",
  reboot: "vzreboot"
}

const delay = (ms: number, timers: Set<NodeJS.Timeout>) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(() => {
      timers.delete(t)
      resolve()
    }, ms)
    timers.add(t)
  })

/** The simulated cluster: nodes, guests (status from the backend), tasks and the journal. */
export class SimWorld {
  readonly nodes = new Map<string, NodeState>()
  readonly guests = new Map<number, GuestState>()
  readonly tasks = new TaskRegistry()
  readonly journal: Array<JournalEntry> = []
  readonly failNext = new Map<number, string>()
  /** Warnings the next power task of a guest logs (it acts, and ends `WARNINGS: <n>`). */
  readonly warnNext = new Map<number, number>()
  /**
   * What pvestatd last wrote to the RRD cache for each guest: its stats as of that update. `/cluster/resources`
   * reports guests from here (SPEC pve-api §8), so their status there lags the real one by up to an update interval.
   */
  readonly rrd = new Map<number, Readonly<Record<string, unknown>>>()
  readonly startedMs: number
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly rrdTimer: NodeJS.Timeout
  private closed = false
  private journalSeq = 0

  constructor(
    readonly now: () => number,
    readonly backend: GuestBackend,
    readonly taskDurationMs: number,
    nodes: ReadonlyArray<SimNode>,
    guests: ReadonlyArray<SimGuest>,
    rrdIntervalMs: number
  ) {
    this.startedMs = now()
    for (const n of nodes) this.setNode(n.name, n)
    for (const g of guests) this.addGuest(g)
    // The cluster has been up for a while: pvestatd has written every guest once already.
    for (const g of this.guests.values()) this.record(g)
    // Its first update reads the backend (a real container may not be in the state its spec says).
    void this.sampleRrd()
    this.rrdTimer = setInterval(() => void this.sampleRrd(), rrdIntervalMs).unref()
    for (const n of this.nodes.values()) {
      this.log(n.name, "systemd", 1, "Started pvedaemon.service - PVE API Daemon.")
      this.log(n.name, "systemd", 1, "Started pveproxy.service - PVE API Proxy Server.")
    }
  }

  setNode(name: string, patch: Partial<SimNode>): void {
    const old = this.nodes.get(name)
    this.nodes.set(name, nodeState({ ...(old ?? {}), ...patch, name }))
  }

  addGuest(spec: SimGuest): void {
    if (this.backend instanceof MemoryBackend) this.backend.set(spec.vmid, spec.status)
    // Guests running from the outset look as if they had been up for a while (1-7 h, stable per vmid).
    const startedAt = this.now() - ((spec.vmid % 7) + 1) * 3_600_000
    this.guests.set(spec.vmid, { spec, status: spec.status, startedAt, checkedAt: Number.NEGATIVE_INFINITY })
  }

  setGuest(vmid: number, patch: Partial<SimGuest>): void {
    const g = this.guests.get(vmid)
    if (g === undefined) throw new Error(`no guest ${vmid}`)
    g.spec = { ...g.spec, ...patch, vmid }
    if (patch.status !== undefined) {
      if (this.backend instanceof MemoryBackend) this.backend.set(vmid, patch.status)
      this.observe(g, patch.status)
    }
  }

  removeGuest(vmid: number): void {
    if (this.backend instanceof MemoryBackend) this.backend.forget(vmid)
    this.guests.delete(vmid)
    this.rrd.delete(vmid)
  }

  /** One pvestatd update: every guest of an online node is read now and written to the RRD cache. */
  async sampleRrd(): Promise<void> {
    const online = [...this.guests.values()].filter((g) => this.nodes.get(g.spec.node)?.status === "online")
    await Promise.all(online.map((g) => this.refresh(g, true)))
    if (this.closed) return
    // A guest removed while it was read is not written back.
    for (const g of online) if (this.guests.get(g.spec.vmid) === g) this.record(g)
  }

  private record(g: GuestState): void {
    const node = this.nodes.get(g.spec.node)
    if (node !== undefined) this.rrd.set(g.spec.vmid, guestStats(g, this.now(), node.maxcpu))
  }

  /** Node by name; unknown → PVE's 500 from the proxy's hostname lookup; offline → the proxy's 595. */
  node(name: string): NodeState {
    const n = this.nodes.get(name)
    if (n === undefined)
      throw new PveError(
        500,
        `hostname lookup '${name}' failed - failed to get address info for: ${name}: Name or service not known`
      )
    if (n.status === "offline") throw new PveError(595, "No route to host")
    return n
  }

  /** The guest `vmid` on `node`, else PVE's "Configuration file … does not exist". */
  guestOn(node: string, vmid: number): GuestState {
    const g = this.guests.get(vmid)
    if (g === undefined || g.spec.node !== node)
      throw new PveError(500, `Configuration file 'nodes/${node}/lxc/${vmid}.conf' does not exist`)
    return g
  }

  /** Re-reads a guest's power state from the backend unless it was read in the last moment (or `force`). */
  async refresh(g: GuestState, force = false): Promise<void> {
    // Wall time, not the simulated clock: a test that freezes `now` must still see backend changes.
    const t = performance.now()
    if (!force && t - g.checkedAt < STATUS_TTL_MS) return
    try {
      this.observe(g, await this.backend.status(g.spec.vmid))
      g.checkedAt = t
    } catch {
      // Keep the last known state when the backend cannot tell (e.g. a container being created).
    }
  }

  async refreshAll(guests: Iterable<GuestState>): Promise<void> {
    await Promise.all([...guests].map((g) => this.refresh(g)))
  }

  private observe(g: GuestState, status: GuestPowerState): void {
    if (status === "running" && g.status !== "running") g.startedAt = this.now()
    g.status = status
  }

  log(node: string, ident: string, pid: number, message: string): void {
    this.journal.push({ seq: ++this.journalSeq, timeMs: this.now(), node, ident, pid, message })
  }

  /** Starts a power task after the synchronous checks PVE does in the API handler; returns the task. */
  async power(node: string, vmid: number, action: PowerAction, user: string, opts: PowerOptions): Promise<SimTask> {
    const g = this.guestOn(node, vmid)
    await this.refresh(g, true)
    if (action === "start" && g.status === "running") throw new PveError(500, `CT ${vmid} already running`)
    if ((action === "stop" || action === "shutdown") && g.status !== "running")
      throw new PveError(500, `CT ${vmid} not running`)
    if (action === "reboot" && g.status !== "running") throw new PveError(500, `VM ${vmid} not running`)
    // HA-managed guests get hastart/hastop tasks: they only hand the request to the HA manager (see runTask).
    const type =
      g.spec.ha !== undefined && action !== "reboot" ? (action === "start" ? "hastart" : "hastop") : TASK_TYPES[action]
    const task = this.tasks.create(node, type, String(vmid), user, Math.floor(this.now() / 1000))
    this.log(node, "pvedaemon", 1234, `<${user}> starting task ${task.upid}`)
    void this.runTask(task, g, action, opts)
    return task
  }

  private async runTask(task: SimTask, g: GuestState, action: PowerAction, opts: PowerOptions): Promise<void> {
    const vmid = g.spec.vmid
    await delay(this.taskDurationMs, this.timers)
    if (this.closed) return
    let exitstatus = "OK"
    const injected = this.failNext.get(vmid)
    if (injected !== undefined) {
      this.failNext.delete(vmid)
      exitstatus = injected
    } else if (task.type === "hastart" || task.type === "hastop") {
      // As pve-container's Status.pm: the task runs `ha-manager crm-command` and ends OK at once; the HA manager
      // starts or stops the guest a while later (a shutdown there is graceful, within the HA timeout).
      void delay(this.taskDurationMs * 3, this.timers).then(async () => {
        if (this.closed) return
        await this.act(vmid, action, action === "shutdown" ? { ...opts, forceStop: true } : opts).catch(() => {})
        await this.refresh(g, true)
      })
    } else {
      try {
        await this.act(vmid, action, opts)
      } catch (e) {
        exitstatus = (e as Error).message.split("\n")[0] ?? "unexpected status"
      }
    }
    if (this.closed) return
    // A task that did its work but logged warnings ends `WARNINGS: <n>`, which PVE counts as success.
    const warnings = this.warnNext.get(vmid)
    if (warnings !== undefined && injected === undefined) {
      this.warnNext.delete(vmid)
      if (exitstatus === "OK") exitstatus = `WARNINGS: ${warnings}`
    }
    await this.refresh(g, true)
    task.log.push(
      exitstatus === "OK"
        ? "TASK OK"
        : exitstatus.startsWith("WARNINGS: ")
          ? `TASK ${exitstatus}`
          : `TASK ERROR: ${exitstatus}`
    )
    task.exitstatus = exitstatus
    task.endtime = Math.floor(this.now() / 1000)
    task.status = "stopped"
    this.log(task.node, "pvedaemon", 1234, `<${task.user}> end task ${task.upid} ${exitstatus}`)
  }

  private async act(vmid: number, action: PowerAction, opts: PowerOptions): Promise<void> {
    const timeout = opts.timeout ?? 60
    switch (action) {
      case "start":
        return this.backend.start(vmid)
      case "stop":
        return this.backend.stop(vmid)
      case "shutdown":
        await this.backend.shutdown(vmid, timeout)
        if ((await this.backend.status(vmid)) === "running") {
          if (opts.forceStop === true) await this.backend.stop(vmid)
          else throw new Error(`command 'lxc-stop -n ${vmid} --nokill --timeout ${timeout}' failed: exit code 1`)
        }
        return
      case "reboot":
        await this.backend.shutdown(vmid, timeout)
        if ((await this.backend.status(vmid)) === "running") await this.backend.stop(vmid)
        return this.backend.start(vmid)
    }
  }

  close(): void {
    this.closed = true
    clearInterval(this.rrdTimer)
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }
}

/** Options of a power action (`timeout` in s and `forceStop` for shutdown/reboot). */
export interface PowerOptions {
  readonly timeout?: number
  readonly forceStop?: boolean
}
