/**
 * Lets V8's memory reducer work on Node 24 and later.
 *
 * V8 gives memory back to the system (the young generation's pages it keeps in a pool, the heap shrunk to what is
 * live) in a "memory-reducing" GC, which its memory reducer starts once the process allocates little. Since V8 13.1
 * (Node 24) the reducer reads the allocation rate of V8's C++ heap (cppgc) as exactly 0 in a process that never
 * allocates there, and treats 0 as the highest rate (V8 change 5935313, "Use exponential decay for allocation speed").
 * So it never starts: only its watchdog does, 100 s after the last major GC, and a process whose ordinary major GCs
 * come more often than that never gets one. An idle `gatehouse serve` with 1,000 routes kept ~60 MiB of pooled pages
 * for good (`--trace-gc` reports them as `pooled:`); with no routes, it kept its start-up heap for ~100 s.
 *
 * Compiling a `vm.Script` allocates one small object on that heap (Node's ContextifyScript), which is enough for the
 * rate to read as low; the rate decays to 0 within ~110 s, so a script is compiled every 30 s. The cost is a few
 * microseconds every 30 s. Only the command does this, not the library: an embedder's process is its own to tune,
 * and `@gatehouse-edge/server` exports this module for one that wants it
 * (`Layer.merge(layerGatehouseServer(options), MemoryReducerNudge.layer)`).
 */
import * as vm from "node:vm"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"

/** How often the C++ heap sees an allocation: well within the ~110 s its allocation rate takes to decay to 0. */
export const nudgeIntervalMs = 30_000

/** Whether this V8 has the reducer's blind spot: 13.1 and later (Node 24 and later). */
export const v8NeedsNudge = (v8Version: string): boolean => {
  const [major = 0, minor = 0] = v8Version.split(".").map((part) => Number.parseInt(part, 10))
  return major > 13 || (major === 13 && minor >= 1)
}

const compileTinyScript = Effect.sync(() => {
  new vm.Script("0")
})

/** On an affected V8, compiles a tiny script now and every {@link nudgeIntervalMs} while up; elsewhere empty. */
export const layer: Layer.Layer<never> = v8NeedsNudge(process.versions.v8)
  ? Layer.effectDiscard(
      compileTinyScript.pipe(Effect.repeat(Schedule.spaced(nudgeIntervalMs)), Effect.forkScoped, Effect.asVoid)
    )
  : Layer.empty
