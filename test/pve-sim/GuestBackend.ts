/** The power state of a guest as a backend reports it. */
export type GuestPowerState = "running" | "stopped"

/** How the simulator's power tasks actually act on guests (in memory by default, or real LXC containers). */
export interface GuestBackend {
  readonly status: (vmid: number) => Promise<GuestPowerState>
  readonly start: (vmid: number) => Promise<void>
  readonly stop: (vmid: number) => Promise<void>
  readonly shutdown: (vmid: number, timeoutS: number) => Promise<void>
}

/** An in-memory backend whose state tests may also set directly (through the simulator's `setGuest`). */
export class MemoryBackend implements GuestBackend {
  private readonly states = new Map<number, GuestPowerState>()

  set(vmid: number, state: GuestPowerState): void {
    this.states.set(vmid, state)
  }

  forget(vmid: number): void {
    this.states.delete(vmid)
  }

  readonly status = async (vmid: number): Promise<GuestPowerState> => this.states.get(vmid) ?? "stopped"

  readonly start = async (vmid: number): Promise<void> => {
    // Mirrors lxc-start refusing a running container; the simulator checks first, so this only guards races.
    if (this.states.get(vmid) === "running") throw new Error(`CT ${vmid} already running`)
    this.states.set(vmid, "running")
  }

  readonly stop = async (vmid: number): Promise<void> => {
    this.states.set(vmid, "stopped")
  }

  readonly shutdown = async (vmid: number, _timeoutS: number): Promise<void> => {
    this.states.set(vmid, "stopped")
  }
}
