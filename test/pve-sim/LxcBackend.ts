import { execFile } from "node:child_process"
import type { GuestBackend, GuestPowerState } from "./GuestBackend.js"

const run = (command: string, args: ReadonlyArray<string>, timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(command, [...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout)
      else
        reject(
          new Error(
            `command '${[command, ...args].join(" ")}' failed: ${stderr.trim() || error.message}`.replace(/\n/g, " ")
          )
        )
    })
  })

/** A backend driving real LXC containers named by vmid under `lxcPath` (the `lxc-*` tools, as root). */
export const lxcBackend = (options: { readonly lxcPath: string }): GuestBackend => {
  const base = (vmid: number) => ["-P", options.lxcPath, "-n", String(vmid)]
  return {
    status: async (vmid): Promise<GuestPowerState> => {
      const state = (await run("lxc-info", [...base(vmid), "-s", "-H"], 10_000)).trim()
      // STARTING/STOPPING/FROZEN count as running, as PVE's `pct status` does for anything not STOPPED.
      return state === "STOPPED" ? "stopped" : "running"
    },
    start: async (vmid) => {
      await run("lxc-start", [...base(vmid), "-d"], 30_000)
    },
    stop: async (vmid) => {
      await run("lxc-stop", [...base(vmid), "-k"], 30_000)
    },
    shutdown: async (vmid, timeoutS) => {
      await run("lxc-stop", [...base(vmid), "-t", String(timeoutS)], (timeoutS + 30) * 1000)
    }
  }
}
