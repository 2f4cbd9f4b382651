import { assert, describe, it } from "@effect/vitest"
import type { ValidationWorkers } from "@gatehouse-edge/core/services"
import { Effect, Fiber } from "effect"
import { generateRouteFile } from "../../../test/support/GeneratedRoutes.js"
import { openWs, request, sendYaml } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// A valid route file of ~1 MB (8,000 routes): about a second and a half of CPU to validate.
const bigRouteFile = generateRouteFile(8000)

// Waits (yielding, without a clock) until `count` documents are being validated on worker threads.
const whileValidating = (workers: ValidationWorkers["Service"], count = 1): Effect.Effect<void> =>
  Effect.flatMap(workers.running, (n) =>
    n >= count ? Effect.void : Effect.andThen(Effect.yieldNow, whileValidating(workers, count))
  )

describe("large documents are validated off the event loop", () => {
  it.live("GET /version answers while a worker thread validates a 1 MB route file", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const validation = yield* Effect.forkChild(sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, bigRouteFile))
        yield* whileValidating(h.validationWorkers)
        const version = yield* request(`${h.baseUrl}/version`)
        assert.strictEqual(version.status, 200)
        // Ordering, not timing: the server answered while the validation was still running.
        assert.isUndefined(validation.pollUnsafe(), "the validation finished before /version")
        assert.strictEqual(yield* h.validationWorkers.running, 1)
        const validated = yield* Fiber.join(validation)
        assert.strictEqual(validated.status, 200)
        assert.strictEqual(validated.json.routes.length, 8001)
      })
    )
  )

  it.live("answers 429 rate_limited when every worker is busy and no more may wait", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ validation: { size: 1, maxQueued: 0 } })
        const first = yield* Effect.forkChild(sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, bigRouteFile))
        yield* whileValidating(h.validationWorkers)
        const refused = yield* sendYaml(`${h.baseUrl}/file/validate?type=routes`, h.apiKey, bigRouteFile)
        assert.strictEqual(refused.status, 429)
        assert.strictEqual(refused.json.error.code, "rate_limited")
        assert.match(refused.json.error.message, /busy validating other large documents/)
        // Small documents never wait for a worker.
        const small = yield* sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, "app:\n  port: 80\n")
        assert.strictEqual(small.status, 200)
        const ws = yield* openWs(`${h.wsUrl}/route/validate`, { key: h.apiKey })
        ws.send(bigRouteFile)
        const closed = yield* Effect.promise(() => ws.closed)
        assert.strictEqual(closed.code, 1013)
        assert.strictEqual((yield* Fiber.join(first)).status, 200)
      })
    )
  )
})
