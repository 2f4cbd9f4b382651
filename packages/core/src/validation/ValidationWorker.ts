/**
 * The entry module of a validation worker thread (`ValidationWorkersLive`): each message is a `ValidationJob`,
 * each reply its result (`{ ok: true, value }`), or `{ ok: false, error }` if validation threw — a bug, reported
 * to the caller while the worker stays up. Built by tsup as `dist/ValidationWorker.js`, next to the module that
 * starts it.
 */
import { parentPort } from "node:worker_threads"
import { runValidationJob } from "./ValidationJobs.js"
import type { ValidationJob } from "./ValidationWorkers.js"
import type { WorkerReply } from "./WorkerPool.js"

const port = parentPort
if (port === null) throw new Error("ValidationWorker.js runs as a worker thread (see ValidationWorkersLive)")

port.on("message", (job: ValidationJob) => {
  let reply: WorkerReply<unknown>
  try {
    reply = { ok: true, value: runValidationJob(job) }
  } catch (error) {
    reply = { ok: false, error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
})
