import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import { pathToFileURL } from "node:url"
import { getHeapStatistics } from "node:v8"
import { Worker, type WorkerOptions } from "node:worker_threads"
import { ValidationQueueFull, ValidationTimedOut, ValidationWorkerFailed } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { scanNesting } from "../yaml/NestingScan.js"
import { defaultYamlLimits, refusedBeforeParsing } from "../yaml/YamlDocument.js"
import { jobSize, runValidationJob } from "./ValidationJobs.js"
import { type ValidationJob, type ValidationResult, ValidationWorkers } from "./ValidationWorkers.js"
import * as WorkerPool from "./WorkerPool.js"

/** How the validation pool is sized and when a job leaves the event loop. */
export interface ValidationWorkersOptions {
  /**
   * Jobs of fewer characters run in this thread. Default 8 KiB: measured, a route file of that size validates in
   * ~7 ms and the slowest-per-byte documents found (flow sequences of scalars, 100,000s of keys) in ~20 ms; at
   * 64 KiB those are 65 ms and 175 ms, too long to hold the event loop.
   */
  readonly inlineBelow?: number
  /** Worker threads. Default: the cores less one for the event loop, at least 1 and at most 4. */
  readonly size?: number
  /** Large jobs that may wait for a worker; one more is refused (429). Default 8. */
  readonly maxQueued?: number
  /** The time budget of a job of `chars` characters, in ms. Default 10 s + 10 s per MiB (~3× the slowest measured). */
  readonly timeoutMs?: (chars: number) => number
  /** Starts a worker thread; default {@link spawnValidationWorker}. Tests pass their own. */
  readonly spawn?: () => Worker
}

/** Jobs under this many characters run inline (see {@link ValidationWorkersOptions.inlineBelow}). */
export const defaultInlineBelow = 8 * 1024

const MiB = 1024 * 1024

// A worker's heap limit is the main thread's own (what inline validation had; an 8 MiB route file, the largest
// accepted, needs ~1 GiB, several together more), set explicitly so that reaching it ends that worker and fails
// its request instead of taking the process down.
const workerHeapMb = Math.round(getHeapStatistics().heap_size_limit / MiB)

/**
 * Starts a validation worker thread. Built (`dist/`): `ValidationWorker.js`, which tsup emits next to the bundle
 * that contains this code. From sources (tests, `npm start`, both through tsx): `ValidationWorker.ts` next to this
 * file — but on Node 20 a worker does not inherit its parent's TypeScript loader (neither from `--import` in the
 * parent nor in the worker's `execArgv`), so a small bootstrap registers tsx in the worker first, then imports it.
 */
export const spawnValidationWorker = (options: WorkerOptions = {}): Worker => {
  const fromSources = import.meta.url.endsWith(".ts")
  const entry = new URL(fromSources ? "./ValidationWorker.ts" : "./ValidationWorker.js", import.meta.url)
  const settings: WorkerOptions = { resourceLimits: { maxOldGenerationSizeMb: workerHeapMb }, ...options }
  if (!fromSources) return new Worker(entry, settings)
  // tsx's ESM API (`register`); `require.resolve` finds its CommonJS build, whose ESM twin sits next to it.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")).href.replace(/\.cjs$/, ".mjs")
  const bootstrap = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(entry.href)})`
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), settings)
}

// Nesting is looked for in this much of a text on the event loop (~1 ms): hostile nesting starts at once, and
// a document that hides it further in is refused by the worker's own scan just as fast, after waiting its turn.
const scannedHere = 64 * 1024

// Whether parseYaml refuses a text before parsing it (over the size limit, nesting too deep): such a text is
// validated here, where its refusal costs microseconds, and never waits in the queue.
const refusedUpFront = (text: string): boolean => {
  if (text.length > defaultYamlLimits.maxBytes) return true
  const prefix = text.length > scannedHere ? text.slice(0, scannedHere) : text
  // The prefix only says where to look; the full scan (stopping at the same place) decides.
  return (
    scanNesting(prefix, defaultYamlLimits.maxDepth).exceededAt !== undefined && refusedBeforeParsing(text) !== undefined
  )
}

// An anchor (`&name` after a space, a line start, an indicator or a flow bracket): where one is, aliases may
// expand the document far past its size (a 7 KB one of 1,000 × 1,900 aliases took 190-380 ms to validate).
const ANCHOR = /(?:^|[\s[{,:?-])&[^\s[\]{},]/

/** Whether a YAML text defines an anchor (so may hold aliases); `a&b` or a URL's `?x=1&y=2` is no anchor. */
export const hasAnchor = (text: string): boolean => ANCHOR.test(text)

// How much parsing a job will really cost, in characters: a text with an anchor counts as at least `large`.
const parsedWeight = (job: ValidationJob, large: number): number => {
  const texts = job.kind === "sources" ? job.sources.map((source) => source.text) : [job.text]
  const weight = (text: string) =>
    refusedUpFront(text) ? 0 : hasAnchor(text) ? Math.max(large, text.length) : text.length
  return texts.reduce((n, text) => n + weight(text), 0)
}

/**
 * The real {@link ValidationWorkers}: small jobs without anchors, and jobs refused before parsing, inline; the rest
 * on a worker pool.
 */
export const make = Effect.fnUntraced(function* (options: ValidationWorkersOptions = {}) {
  const inlineBelow = options.inlineBelow ?? defaultInlineBelow
  // Whole milliseconds: the budget is reported as `timeout_ms`, an integer (a fraction failed to construct the error,
  // so a timed-out job died with a schema defect instead of a 504).
  const timeoutMs = options.timeoutMs ?? ((chars: number) => Math.ceil(10_000 + (10_000 * chars) / MiB))
  const pool = yield* WorkerPool.make<ValidationJob, unknown>({
    spawn: options.spawn ?? (() => spawnValidationWorker()),
    size: options.size ?? Math.min(4, Math.max(1, availableParallelism() - 1)),
    maxQueued: options.maxQueued ?? 8
  })

  const run = Effect.fn("ValidationWorkers.run")(function* <J extends ValidationJob>(job: J) {
    const size = jobSize(job)
    if (parsedWeight(job, inlineBelow) < inlineBelow) return runValidationJob(job)
    const result = yield* pool
      .run(job, timeoutMs(size))
      .pipe(
        Effect.mapError((error) =>
          error instanceof WorkerPool.PoolFull
            ? new ValidationQueueFull({ queued: error.queued })
            : error instanceof WorkerPool.JobTimedOut
              ? new ValidationTimedOut({ timeout_ms: Math.ceil(error.timeoutMs) })
              : new ValidationWorkerFailed({ detail: error.detail })
        )
      )
    return result as ValidationResult<J>
  })

  return ValidationWorkers.of({ run, running: pool.running })
})

/** {@link ValidationWorkers} with these options; its worker threads end when the layer closes. */
export const layerWith = (options: ValidationWorkersOptions): Layer.Layer<ValidationWorkers> =>
  Layer.effect(ValidationWorkers, make(options))

/**
 * The default {@link ValidationWorkers}. One value, so every layer that provides it to itself (the route validator,
 * the config source) shares one pool within a server.
 */
export const layer: Layer.Layer<ValidationWorkers> = layerWith({})

/** {@link ValidationWorkers} running every job in this thread: for embedding and for comparing results. */
export const layerInline: Layer.Layer<ValidationWorkers> = Layer.succeed(ValidationWorkers)(
  ValidationWorkers.of({
    run: Effect.fn("ValidationWorkers.run")(<J extends ValidationJob>(job: J) =>
      Effect.sync(() => runValidationJob(job))
    ),
    running: Effect.succeed(0)
  })
)
