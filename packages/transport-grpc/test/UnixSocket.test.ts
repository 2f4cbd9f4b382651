import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { GrpcServerAddress } from "../src/index.js"
import { clientOf, grpcServerLayer } from "./support/GrpcHarness.js"

// Spins on lstat of the socket's path in a thread of its own, recording every mode the path is seen with, until
// told to stop: a window in which the socket has another mode is seen if it lasts longer than one lstat.
const watcherSource = `
const { parentPort, workerData } = require("node:worker_threads")
const fs = require("node:fs")
const stop = new Int32Array(workerData.stop)
const modes = new Set()
parentPort.postMessage("ready")
while (Atomics.load(stop, 0) === 0) {
  try { modes.add(fs.lstatSync(workerData.path).mode & 0o777) } catch {}
}
parentPort.postMessage([...modes])
`

describe("the gRPC unix socket", () => {
  it.live(
    "even under umask 0 it is never reachable with another mode than 0770, and it goes when the server stops",
    () =>
      Effect.gen(function* () {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-umask-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
        const socketPath = path.join(dir, "gatehouse.sock")
        const stop = new SharedArrayBuffer(4)
        const worker = new Worker(watcherSource, { eval: true, workerData: { path: socketPath, stop } })
        yield* Effect.addFinalizer(() => Effect.promise(() => worker.terminate()))
        const messages: Array<unknown> = []
        const next = () =>
          Effect.callback<unknown>((resume) => {
            worker.once("message", (message) => resume(Effect.succeed(message)))
          })
        assert.strictEqual(yield* next(), "ready")

        // Five starts: the window the old chmod-after-bind left was caught in about two starts of three.
        const umask = process.umask(0)
        const served = yield* Effect.forEach(Array.from({ length: 5 }), () =>
          Effect.gen(function* () {
            // A call through the socket proves it is the server's, not only a file with the right mode.
            const client = yield* clientOf({ unix: true })
            const answered = yield* Effect.callback<boolean>((resume) => {
              client.ListUsers({}, (error) => resume(Effect.succeed(error === null)))
            })
            return { answered, socket: (yield* GrpcServerAddress).unixSocket }
          }).pipe(Effect.scoped, Effect.provide(Layer.fresh(grpcServerLayer({ unixSocket: socketPath }))))
        ).pipe(Effect.ensuring(Effect.sync(() => process.umask(umask))))
        Atomics.store(new Int32Array(stop), 0, 1)
        messages.push(yield* next())

        assert.deepStrictEqual(served, Array(5).fill({ answered: true, socket: socketPath }))
        assert.deepStrictEqual(messages, [[0o770]])
        // Stopped: the socket is gone, and so is the directory it was bound in.
        assert.deepStrictEqual(fs.readdirSync(dir), [])
      }).pipe(Effect.scoped)
  )
})
