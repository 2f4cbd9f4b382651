import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { closedUnanswered, rawConnection } from "../../../test/support/RawConnection.js"
import { startTestServer } from "../../../test/support/TestServer.js"
import { listenerConnections, openFilesLimit } from "../src/ConnectionBudget.js"

describe("connection caps from the config", () => {
  it.live("http.limits and grpc.limits cap a client's TCP connections on each listener", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer({
          configYaml: "http:\n  limits: { connections_per_client: 1 }\ngrpc:\n  limits: { connections_per_client: 1 }\n"
        })
        const httpPort = Number(new URL(server.origin).port)
        const grpcPort = Number(server.grpcAddress.split(":").pop())
        // One connection each is held (headers not finished, HTTP/2 preface sent); the next is closed unread.
        yield* rawConnection(httpPort, "GET /health HTTP/1.1\r\n")
        yield* rawConnection(grpcPort, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        // The listener accepts in order: the held connection is counted before the next one is seen.
        yield* closedUnanswered(yield* rawConnection(httpPort, "GET /health HTTP/1.1\r\n"))
        yield* closedUnanswered(yield* rawConnection(grpcPort, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
      })
    )
  )
})

describe("the listeners' share of the open-file limit", () => {
  it("is half of 80 % of the limit less a reserve for each listener; a fixed total where it is unknown", () => {
    assert.strictEqual(listenerConnections(20_000), 7744)
    assert.strictEqual(listenerConnections(1_048_576), 419_174)
    assert.strictEqual(listenerConnections(256), 64)
    assert.strictEqual(listenerConnections(undefined), 8192)
  })

  it.live("is read from the process's limits", () =>
    Effect.gen(function* () {
      const limit = yield* openFilesLimit
      if (process.platform === "linux") assert.isAbove(limit ?? 0, 0)
    })
  )
})
