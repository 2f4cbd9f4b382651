/**
 * Bytes allocated on this process's V8 heap while some work runs, by V8's sampling heap profiler (through
 * `node:inspector`, in this process). Objects the garbage collector has already freed count too: what is measured is
 * allocation, what makes the young generation collect (and, on Node 24, grow), not what stays alive.
 *
 * A sample is taken every `intervalBytes` allocated on average, so the total is an estimate; at 8 KiB and the
 * megabytes a benchmark allocates, it is within a few percent. The profiler costs little at that rate, so CPU time
 * measured around the same work stays comparable.
 */
import * as inspector from "node:inspector"
import { Effect } from "effect"

interface ProfileNode {
  readonly selfSize: number
  readonly children: ReadonlyArray<ProfileNode>
}

const totalOf = (node: ProfileNode): number => node.children.reduce((sum, child) => sum + totalOf(child), node.selfSize)

const post = <A = unknown>(session: inspector.Session, method: string, params?: object) =>
  Effect.callback<A>((resume) => {
    session.post(method, params, (error, result) => resume(error ? Effect.die(error) : Effect.succeed(result as A)))
  })

/** Runs `work` and returns its result with the bytes it (and anything else in the process meanwhile) allocated. */
export const allocatedDuring = <A, E, R>(
  work: Effect.Effect<A, E, R>,
  intervalBytes = 8 * 1024
): Effect.Effect<{ readonly result: A; readonly allocatedBytes: number }, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const session = new inspector.Session()
      session.connect()
      return session
    }),
    (session) =>
      Effect.gen(function* () {
        yield* post(session, "HeapProfiler.enable")
        yield* post(session, "HeapProfiler.startSampling", {
          samplingInterval: intervalBytes,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true
        })
        const result = yield* work
        const { profile } = yield* post<{ profile: { head: ProfileNode } }>(session, "HeapProfiler.stopSampling")
        return { result, allocatedBytes: totalOf(profile.head) }
      }),
    (session) => Effect.sync(() => session.disconnect())
  )
