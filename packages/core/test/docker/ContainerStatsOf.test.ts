import { describe, expect, it } from "vitest"
import {
  containerStatsOf,
  cpuPercent,
  epochNanos,
  isLiveSample,
  memoryUsed
} from "../../src/docker/ContainerStatsOf.js"

// Shapes as the engines send them (test-infra §1.3): dockerd on cgroup v1, dockerd on cgroup v2, podman's compat API.
const dockerV1 = {
  read: "2026-11-24T10:00:01.000000001Z",
  name: "/probe-web",
  id: "abc",
  cpu_stats: {
    cpu_usage: { total_usage: 2_400_000_000, percpu_usage: [1, 1] },
    system_cpu_usage: 20_000_000_000,
    online_cpus: 2
  },
  precpu_stats: { cpu_usage: { total_usage: 2_000_000_000 }, system_cpu_usage: 18_000_000_000 },
  memory_stats: {
    usage: 50 * 1024 * 1024,
    limit: 1024 * 1024 * 1024,
    stats: { cache: 10 * 1024 * 1024, total_inactive_file: 8 * 1024 * 1024 }
  },
  blkio_stats: {
    io_service_bytes_recursive: [
      { major: 8, minor: 0, op: "Read", value: 4096 },
      { major: 8, minor: 0, op: "Write", value: 8192 },
      { op: "Total", value: 12288 }
    ]
  },
  pids_stats: { current: 3 }
}

const dockerV2 = {
  ...dockerV1,
  memory_stats: {
    usage: 50 * 1024 * 1024,
    limit: 512 * 1024 * 1024,
    stats: { inactive_file: 2 * 1024 * 1024, file: 5 * 1024 * 1024 }
  },
  networks: { eth0: { rx_bytes: 1000, tx_bytes: 2000 }, eth1: { rx_bytes: 1, tx_bytes: 2 } },
  blkio_stats: {
    io_service_bytes_recursive: [
      { op: "read", value: 100 },
      { op: "write", value: 200 }
    ]
  }
}

const podman = {
  read: "2026-11-24T10:00:01Z",
  name: "probe-web",
  Id: "abc",
  cpu_stats: { cpu_usage: { total_usage: 5000 }, system_cpu_usage: 100000, online_cpus: 2 },
  precpu_stats: { cpu_usage: { total_usage: 0 }, system_cpu_usage: 0 },
  memory_stats: { usage: 3 * 1024 * 1024, limit: 2 ** 40 },
  networks: { network: { rx_bytes: 10, tx_bytes: 20 } },
  blkio_stats: { io_service_bytes_recursive: null },
  pids_stats: { current: 1 }
}

// Podman 4.3's compat stats stream for a container running `yes` on 2 CPUs (captured): its system CPU time
// advances at wall-clock rate, not twice that, so docker's formula would read 200%; one busy CPU is 100%.
const podmanStream = {
  read: "2026-11-24T20:48:40.091461832Z",
  preread: "2026-11-24T20:48:35.088879134Z",
  name: "busy",
  cpu_stats: { cpu_usage: { total_usage: 25_151_480_000 }, system_cpu_usage: 1_402_961_000_000, online_cpus: 2 },
  precpu_stats: { cpu_usage: { total_usage: 20_152_000_000 }, system_cpu_usage: 1_397_957_000_000, online_cpus: 2 }
}

describe("container stats normalization", () => {
  it("reads RFC 3339 times to the nanosecond", () => {
    expect(epochNanos("2026-11-24T20:48:40.091461832Z")! - epochNanos("2026-11-24T20:48:35.088879134Z")!).toBe(
      5_002_582_698n
    )
    expect(epochNanos("2026-11-24T20:48:40Z")).toBe(epochNanos("2026-11-24T21:48:40+01:00"))
    expect(epochNanos("0001-01-01T00:00:00Z")).toBeUndefined()
    expect(epochNanos("yesterday")).toBeUndefined()
  })

  it("one busy CPU is 100% from Podman too: its CPU time over the time between the samples", () => {
    expect(cpuPercent(podmanStream)).toBeCloseTo((4_999_480_000 / 5_002_582_698) * 100, 6)
  })

  it("computes CPU % from the deltas as docker stats does (times the CPUs)", () => {
    expect(cpuPercent(dockerV1)).toBeCloseTo((400_000_000 / 2_000_000_000) * 2 * 100, 6)
    // No previous sample (Podman one-shot, a stream's first): 0, not a huge number.
    expect(cpuPercent(podman)).toBe(0)
  })

  it("excludes the page cache on cgroup v1 and v2; uses the usage when the engine gives no detail", () => {
    expect(memoryUsed(dockerV1)).toBe(42 * 1024 * 1024)
    expect(memoryUsed(dockerV2)).toBe(48 * 1024 * 1024)
    expect(memoryUsed(podman)).toBe(3 * 1024 * 1024)
  })

  it("gives the same shape for every engine", () => {
    expect(containerStatsOf("local", "abc", dockerV2)).toEqual({
      id: "abc",
      name: "probe-web",
      host: "local",
      cpu_pct: 40,
      mem_used: 48 * 1024 * 1024,
      mem_limit: 512 * 1024 * 1024,
      mem_pct: 9.38,
      net_rx: 1001,
      net_tx: 2002,
      block_read: 100,
      block_write: 200,
      pids: 3,
      timestamp: "2026-11-24T10:00:01.000000001Z"
    })
    const fromPodman = containerStatsOf("pod", "abc", podman)
    expect(Object.keys(fromPodman).sort()).toEqual(Object.keys(containerStatsOf("local", "abc", dockerV1)).sort())
    expect(fromPodman).toMatchObject({
      name: "probe-web",
      net_rx: 10,
      net_tx: 20,
      block_read: 0,
      block_write: 0,
      pids: 1
    })
  })

  it("is 0% memory without a limit, and 0 for anything missing", () => {
    expect(containerStatsOf("h", "x", {})).toEqual({
      id: "x",
      name: "",
      host: "h",
      cpu_pct: 0,
      mem_used: 0,
      mem_limit: 0,
      mem_pct: 0,
      net_rx: 0,
      net_tx: 0,
      block_read: 0,
      block_write: 0,
      pids: 0,
      timestamp: ""
    })
  })
})

describe("isLiveSample", () => {
  it("is false for what Docker sends once the container stopped (zeros at Go's zero time), true otherwise", () => {
    // As dockerd 20.10 streams it after the stop (and answers a one-shot read of a stopped container).
    const stopped = { read: "0001-01-01T00:00:00Z", preread: "2026-11-28T07:16:08.012981841Z", pids_stats: {} }
    expect(isLiveSample(stopped)).toBe(false)
    expect(isLiveSample(dockerV1)).toBe(true)
    // Podman's first one-shot sample has no previous one, but is a measurement.
    expect(isLiveSample({ read: "2026-11-24T10:00:01Z", preread: "0001-01-01T00:00:00Z" })).toBe(true)
    expect(isLiveSample({}), "no time: taken as it comes").toBe(true)
  })
})
