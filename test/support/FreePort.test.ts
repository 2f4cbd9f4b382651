import * as fs from "node:fs"
import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { freePort } from "./FreePort.js"

const ephemeralStart = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])

describe("freePort", () => {
  it.effect("gives distinct ports below the OS's ephemeral range, each one bindable", () =>
    Effect.gen(function* () {
      const ports = [yield* freePort, yield* freePort, yield* freePort]
      assert.strictEqual(new Set(ports).size, 3)
      for (const port of ports) {
        assert.isBelow(port, ephemeralStart)
        const bound = yield* Effect.callback<boolean>((resume) => {
          const server = net.createServer()
          server.once("error", () => resume(Effect.succeed(false)))
          server.listen(port, "127.0.0.1", () => server.close(() => resume(Effect.succeed(true))))
        })
        assert.isTrue(bound, `port ${port}`)
      }
    })
  )

  it.effect("skips a port someone listens on", () =>
    Effect.gen(function* () {
      const first = yield* freePort
      // Hold the port the next call would give (the slice is walked in order), then ask. When `first` ends this
      // worker's slice, `first + 1` starts the next worker's, which may hold it already: busy either way.
      const held = first + 1
      yield* Effect.acquireRelease(
        Effect.callback<net.Server | undefined>((resume) => {
          const server = net.createServer()
          server.once("error", () => resume(Effect.succeed(undefined)))
          server.listen(held, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.callback<void>((resume) => {
            if (server === undefined) resume(Effect.void)
            else server.close(() => resume(Effect.void))
          })
      )
      const second = yield* freePort
      assert.notStrictEqual(second, held)
    }).pipe(Effect.scoped)
  )
})
