import * as fs from "node:fs"
import * as net from "node:net"
import { Effect } from "effect"

/*
 * Why not "listen on port 0, note the port, close": the OS hands out ports from its ephemeral range
 * (`ip_local_port_range`) to every `listen(0)` and every outgoing connection of every test worker, so a port
 * picked that way and closed again can go to someone else before the test's server binds it (an EADDRINUSE seen in
 * CI). The ports here come from below that range, where the OS never picks on its own, and each vitest worker
 * (`VITEST_POOL_ID`) draws from its own slice of it, so two workers never pick the same port either.
 */

const lowest = 20_000
const slices = 64

/** The first port of the OS's ephemeral range (Linux), or its usual default when it cannot be read. */
const ephemeralStart = (): number => {
  try {
    const first = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
    return Number.isInteger(first) && first > lowest + slices ? first : 32_768
  } catch {
    return 32_768
  }
}

const sliceSize = Math.floor((ephemeralStart() - lowest) / slices)
const sliceStart = lowest + (Number(process.env.VITEST_POOL_ID ?? 0) % slices) * sliceSize
// A random start: a worker runs many test files one after another, each in a fresh process.
let next = Math.floor(Math.random() * sliceSize)

const bindable = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const probe = net.createServer()
    probe.once("error", () => resume(Effect.succeed(false)))
    probe.listen(port, "127.0.0.1", () => probe.close(() => resume(Effect.succeed(true))))
  })

/**
 * A TCP port on 127.0.0.1, free a moment ago, for a test's server or daemon that must know its port before it
 * starts. It lies below the ephemeral range and in this worker's own slice (see above); each call gives the next one.
 */
export const freePort: Effect.Effect<number> = Effect.gen(function* () {
  for (let tried = 0; tried < sliceSize; tried++) {
    const port = sliceStart + (next++ % sliceSize)
    if (yield* bindable(port)) return port
  }
  return yield* Effect.die(new Error(`no free port in ${sliceStart}..${sliceStart + sliceSize - 1}`))
})
