import * as fs from "node:fs"
import * as path from "node:path"
import type { Effect, Scope } from "effect"
import { type ContainerEngine, startEngineDaemon } from "./EngineHarness.js"

/**
 * Starts rootful Podman's Docker-compatible API (`podman system service`, Debian `podman`) as test-infra §1.1
 * does: its own storage, runtime dir and socket in a temp dir, configured through CONTAINERS_CONF and
 * CONTAINERS_STORAGE_CONF (nothing in /etc changes), with the three settings this machine needs — ulimits podman
 * may set, runc instead of crun (cgroup hybrid mode), cgroupfs; events in a file rather than the journal.
 */
export const startPodman: Effect.Effect<ContainerEngine, Error, Scope.Scope> = startEngineDaemon({
  label: "podman",
  tempPrefix: "ghp-",
  command: "podman",
  prepare: (base) => {
    fs.writeFileSync(
      path.join(base, "containers.conf"),
      [
        "[containers]",
        'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]',
        "[engine]",
        'runtime = "runc"',
        'cgroup_manager = "cgroupfs"',
        'events_logger = "file"',
        // Its runtime files (events log, locks) under the test's dir too, not in /run/libpod.
        `tmp_dir = "${path.join(base, "libpod")}"`,
        ""
      ].join("\n")
    )
    fs.writeFileSync(
      path.join(base, "storage.conf"),
      [
        "[storage]",
        'driver = "overlay"',
        `graphroot = "${path.join(base, "storage")}"`,
        `runroot = "${path.join(base, "run")}"`,
        ""
      ].join("\n")
    )
  },
  env: (base) => ({
    CONTAINERS_CONF: path.join(base, "containers.conf"),
    CONTAINERS_STORAGE_CONF: path.join(base, "storage.conf")
  }),
  // `--time=0`: the service stays up while idle (it would otherwise exit after 5 s without a request).
  args: (_base, socket) => ["system", "service", "--time=0", `unix://${socket}`]
})
