import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import { Docker } from "../../packages/core/src/docker/Docker.js"
import * as DockerLive from "../../packages/core/src/docker/DockerLive.js"
import { startDockerd } from "../support/Dockerd.js"
import { requireTool } from "../support/e2e.js"
import { tempDir } from "../support/TempDir.js"
import { waitFor } from "../support/WaitFor.js"
import { chatty } from "./EngineSuite.js"

// The service starts while its engine cannot be reached (a daemon not up yet, a socket not there): the container
// events of the wait are recorded once the engine answers, and none from before the service started. The engine is a
// real dockerd reached through a path that first holds a socket hanging up on every connection, then a link to the
// engine's socket.

const dockerd = requireTool("dockerd")

/** A unix socket at `at` that hangs up on every connection (an engine that is not there yet); closed when asked. */
const hangingUp = (at: string) =>
  Effect.callback<{ readonly connections: () => number; readonly close: Effect.Effect<void> }>((resume) => {
    let connections = 0
    const server = net.createServer((socket) => {
      connections++
      socket.destroy()
    })
    server.listen(at, () =>
      resume(
        Effect.succeed({
          connections: () => connections,
          close: Effect.callback<void>((closed) => {
            server.close(() => closed(Effect.void))
          })
        })
      )
    )
  })

describe.skipIf(dockerd.skip)(
  "container events of an engine that was down when the service started",
  { timeout: 90_000 },
  () => {
    it.live("what the engine did while it was waited for is recorded, nothing from before", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* startDockerd
          const old = yield* engine.run("old", chatty)
          // Events are asked for by the second: the service starts in a later one than old's start.
          const inspected = JSON.parse((yield* engine.api("GET", `/containers/${old}/json`)).body)
          const oldSecond = Math.floor(Date.parse(inspected.State.StartedAt) / 1000)
          yield* waitFor(
            Effect.sync(() => Math.floor(Date.now() / 1000)),
            (second) => second > oldSecond,
            "the second after old started"
          )

          const link = path.join(yield* tempDir("gatehouse-docker-wait-"), "engine.sock")
          const absent = yield* hangingUp(link)
          const docker = yield* Effect.map(
            Layer.build(DockerLive.layer({ hosts: [{ name: "local", url: `unix://${link}`, tls: undefined }] })),
            (context) => Context.get(context, Docker)
          )
          const seen: Array<string> = []
          yield* Effect.forkScoped(
            Stream.runForEach(docker.events, (event) => Effect.sync(() => seen.push(`${event.action}:${event.name}`)))
          )
          // The event stream's first open was refused: the service is waiting for the engine.
          yield* waitFor(Effect.sync(absent.connections), (n) => n > 0, "the first open of the event stream")

          // Meanwhile the engine starts a container; then it can be reached.
          yield* engine.run("new", chatty)
          yield* absent.close
          fs.symlinkSync(engine.socket, link)

          yield* waitFor(
            Effect.sync(() => seen),
            (events) => events.includes("start:new"),
            "the start of new, from while the engine was waited for",
            20_000
          )
          assert.deepStrictEqual(seen, ["start:new"], "once, and nothing from before the service started")
        })
      )
    )
  }
)
