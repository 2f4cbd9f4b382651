import type { Guest } from "@gatehouse-edge/contract/domain"
import { describe, expect, it } from "vitest"
import { formatBinarySize, guestStatsLine } from "../../src/hypervisor/GuestStatsLine.js"

const GiB = 1024 ** 3

describe("formatBinarySize (SPEC §5.2)", () => {
  it.each([
    [0, "0B"],
    [1, "1B"],
    [1023, "1023B"],
    [1024, "1KiB"],
    [1536, "1.5KiB"],
    [1024 * 1024 - 1, "1MiB"],
    [1.25 * 1024 * 1024, "1.3MiB"],
    [9.6 * GiB, "9.6GiB"],
    [20 * GiB, "20GiB"],
    [3 * 1024 ** 4, "3TiB"],
    [2 * 1024 ** 5, "2PiB"],
    [4096 * 1024 ** 5, "4096PiB"]
  ])("%d bytes → %s", (bytes, text) => {
    expect(formatBinarySize(bytes)).toBe(text)
  })
})

const guest = (patch: Partial<Guest>): Guest => ({
  cluster: "pve",
  node: "pve1",
  vmid: 101,
  type: "lxc",
  name: "web",
  status: "running",
  cpu_usage_pct: 31.1,
  mem_used: 9.6 * GiB,
  mem_total: 20 * GiB,
  net_in: 4.7 * GiB,
  net_out: 3.3 * GiB,
  disk_read: 25 * GiB,
  disk_write: 36 * GiB,
  uptime_s: 100,
  ips: [],
  tags: [],
  ...patch
})

describe("guestStatsLine", () => {
  it("writes STATUS|CPU%|MEM USAGE/LIMIT|MEM%|NET I/O|BLOCK I/O", () => {
    expect(guestStatsLine(guest({}))).toBe("running|31.1%|9.6GiB/20GiB|48.00%|4.7GiB/3.3GiB|25GiB/36GiB")
  })

  it("gives MEM% 0.00% without a limit, and a stopped guest's zeros", () => {
    expect(
      guestStatsLine(
        guest({
          status: "stopped",
          cpu_usage_pct: 0,
          mem_used: 0,
          mem_total: 0,
          net_in: 0,
          net_out: 0,
          disk_read: 0,
          disk_write: 0
        })
      )
    ).toBe("stopped|0.0%|0B/0B|0.00%|0B/0B|0B/0B")
  })

  it("rounds CPU% to one decimal and MEM% to two", () => {
    expect(guestStatsLine(guest({ cpu_usage_pct: 2.345678, mem_used: 1, mem_total: 3 }))).toMatch(
      /^running\|2\.3%\|1B\/3B\|33\.33%\|/
    )
  })
})
