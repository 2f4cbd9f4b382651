/** A worker task as PVE tracks it. */
export interface SimTask {
  readonly upid: string
  readonly node: string
  readonly pid: number
  readonly pstart: number
  readonly starttime: number
  readonly type: string
  readonly id: string
  /** The UPID user: `root@pam` or `root@pam!tokenid`. */
  readonly user: string
  status: "running" | "stopped"
  exitstatus?: string
  readonly log: Array<string>
  endtime?: number
}

/** The reference parser regex for UPIDs. */
export const UPID_REGEX =
  /^UPID:([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$/

const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, "0")

/** Creates UPIDs and keeps every task of the simulator's lifetime. */
export class TaskRegistry {
  private readonly tasks = new Map<string, SimTask>()
  private nextPid = 0x2a9d4
  private nextPstart = 0x00f1b2c3

  create(node: string, type: string, id: string, user: string, starttime: number): SimTask {
    const pid = this.nextPid++
    const pstart = (this.nextPstart += 37)
    const upid = `UPID:${node}:${hex(pid, 8)}:${hex(pstart, 8)}:${hex(starttime, 8)}:${type}:${id}:${user}:`
    const task: SimTask = { upid, node, pid, pstart, starttime, type, id, user, status: "running", log: [] }
    this.tasks.set(upid, task)
    return task
  }

  get(upid: string): SimTask | undefined {
    return this.tasks.get(upid)
  }

  /** The task status object of `GET /nodes/{node}/tasks/{upid}/status`. */
  static statusOf(task: SimTask): Record<string, unknown> {
    const bang = task.user.indexOf("!")
    const out: Record<string, unknown> = {
      upid: task.upid,
      node: task.node,
      pid: task.pid,
      pstart: task.pstart,
      starttime: task.starttime,
      type: task.type,
      id: task.id,
      user: bang < 0 ? task.user : task.user.slice(0, bang),
      status: task.status
    }
    if (bang >= 0) out.tokenid = task.user.slice(bang + 1)
    if (task.status === "stopped") out.exitstatus = task.exitstatus
    return out
  }
}
