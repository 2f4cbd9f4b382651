import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { requireTool } from "../support/e2e.js"
import { startPodman } from "../support/Podman.js"
import { logsSuite, statsSuite } from "./EngineSuite.js"

// The Docker service against Podman's Docker-compatible API (Debian podman, rootful, test-infra §1.1): the same
// stats and logs checks dockerd passes (DockerLive.test.ts), proving the normalization across engines.

const podman = requireTool("podman")

describe.skipIf(podman.skip)(
  "DockerLive against Podman's Docker API",
  // Each test starts its own podman service and real containers.
  { timeout: 90_000 },
  () => {
    it.live("stats: the same normalized shape and values as from dockerd", () =>
      Effect.scoped(Effect.flatMap(startPodman, statsSuite))
    )
    it.live("logs: the same lines as from dockerd", () => Effect.scoped(Effect.flatMap(startPodman, logsSuite)))
  }
)
