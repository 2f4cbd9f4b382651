import type { IncomingMessage } from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { WebSocket } from "ws"
import { waitFor } from "../../../test/support/WaitFor.js"
import type { AccessLogEntry } from "../src/index.js"
import { startHarness } from "./support/TransportHarness.js"

/** Opens a WebSocket and returns the headers of its 101, closing it once they are read. */
const upgradeHeaders = (url: string, headers: Record<string, string>) =>
  Effect.callback<IncomingMessage["headers"], Error>((resume) => {
    const socket = new WebSocket(url, { headers })
    socket.on("upgrade", (response) => resume(Effect.succeed(response.headers)))
    socket.on("unexpected-response", (_request, response) =>
      resume(Effect.fail(new Error(`no upgrade: ${response.statusCode}`)))
    )
    socket.on("error", (error) => resume(Effect.fail(error)))
    socket.on("open", () => socket.close(1000))
  })

describe("the request id of a WebSocket handshake", () => {
  it.live("the 101 echoes the client's x-request-id, or carries the generated one its access line has", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const entries: Array<AccessLogEntry> = []
        const h = yield* startHarness({ accessLog: (entry) => entries.push(entry) })
        const authorization = `Bearer ${h.apiKey}`

        const echoed = yield* upgradeHeaders(`${h.wsUrl}/events`, { authorization, "x-request-id": "ws-abc" })
        assert.strictEqual(echoed["x-request-id"], "ws-abc")

        const generated = yield* upgradeHeaders(`${h.wsUrl}/health`, { authorization })
        const id = String(generated["x-request-id"])
        assert.match(id, /^[0-9a-f-]{36}$/)
        // A stream's line is written when it closes.
        const line = yield* waitFor(
          Effect.sync(() => entries.find((entry) => entry.path === "/api/v1/health")),
          (found) => found !== undefined,
          "the access line of the /health stream"
        )
        assert.strictEqual(line?.status, 101)
        assert.strictEqual(line?.request_id, id)
      })
    )
  )
})
