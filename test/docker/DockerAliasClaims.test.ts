import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../../packages/transport-http/test/support/Http.js"
import { requireTool } from "../support/e2e.js"
import { waitFor } from "../support/WaitFor.js"
import { dockerWorld } from "./DockerWorld.js"

// Two containers whose labels claim one alias, on a real dockerd (which lists the newest container first) and the
// real server composition: the older container keeps the route, and the problem names both containers.

const dockerd = requireTool("dockerd")

const claimsShared = {
  Cmd: ["sleep", "1000"],
  StopSignal: "SIGKILL",
  Labels: {
    "proxy.aliases": "shared",
    "proxy.shared.host": "127.0.0.1",
    "proxy.shared.port": "9",
    "proxy.shared.healthcheck": "{disable: true}"
  }
}

const duplicate = "container dup2: duplicate alias `shared` (first defined at docker:local container dup1)"

describe.skipIf(dockerd.skip)("an alias two containers claim", { timeout: 90_000 }, () => {
  it.live("the older container keeps it, however the engine lists them; the problem names both", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { engine, url, key } = yield* dockerWorld()
        const older = yield* engine.run("dup1", claimsShared)
        yield* waitFor(
          request(url("/route/list"), { key }),
          (r) => r.json.some((route: { alias: string }) => route.alias === "shared"),
          "the first container's route"
        )
        yield* engine.run("dup2", claimsShared)
        const problems = yield* waitFor(
          request(url("/events?category=config"), { key }),
          (r) => JSON.stringify(r.json).includes("duplicate alias"),
          "the duplicate reported"
        )
        const messages = problems.json.flatMap((e: { data: { issues?: Array<{ message: string }> } }) =>
          (e.data.issues ?? []).map((issue) => issue.message)
        )
        assert.include(messages, duplicate, JSON.stringify(messages))
        // The alias still names the older container (dockerd lists dup2 first).
        const listed = yield* request(url("/docker/containers"), { key })
        assert.deepStrictEqual(
          listed.json.map((c: { name: string }) => c.name),
          ["dup2", "dup1"],
          "the engine's order, newest first"
        )
        const stats = yield* request(url("/docker/stats/shared"), { key })
        assert.strictEqual(stats.status, 200, stats.text)
        assert.strictEqual(stats.json.id, older)
        const routes = yield* request(url("/route/list"), { key })
        assert.deepStrictEqual(
          routes.json.filter((route: { alias: string }) => route.alias === "shared").length,
          1,
          "one route, the older container's"
        )
      })
    )
  )
})
