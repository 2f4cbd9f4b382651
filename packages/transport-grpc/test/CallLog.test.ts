import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { Effect, Layer, Logger, References } from "effect"
import type { AuthServiceClient } from "../src/client.js"
import { clientOf, grpcServerLayer, keys } from "./support/GrpcHarness.js"

interface Logged {
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

/** A unary call's status and trailers, whatever its outcome. */
const statusOf = (client: AuthServiceClient, authId: string) =>
  Effect.callback<grpc.StatusObject>((resume) => {
    const call = client.GetAuthRequest({ authId }, () => {})
    call.on("status", (status: grpc.StatusObject) => resume(Effect.succeed(status)))
  })

const callLines = (logged: ReadonlyArray<Logged>) =>
  logged.filter((line) => Array.isArray(line.message) && line.message[0] === "grpc").map((line) => line.annotations)

describe("the gRPC call log", () => {
  it.live(
    "each AuthService call ends in one line: method, status, error, duration, the id sent in its trailers",
    () => {
      const logged: Array<Logged> = []
      const capture = Logger.make((options) => {
        logged.push({ message: options.message, annotations: options.fiber.getRef(References.CurrentLogAnnotations) })
      })
      return Effect.gen(function* () {
        const client = yield* clientOf({ apiKey: keys.valid.key })
        const created = yield* Effect.callback<string>((resume) => {
          client.CreateAuthRequest(
            { kind: "AUTH_REQUEST_KIND_SSH_CHECK", sshCheck: { src: "127.0.0.1", dst: "db1", localUser: "root" } },
            (error, value) => resume(error === null ? Effect.succeed(value!.authRequest!.authId) : Effect.die(error))
          )
        })
        const found = yield* statusOf(client, created)
        const missing = yield* statusOf(client, `ghreq_${"m".repeat(24)}`)
        assert.strictEqual(found.code, grpc.status.OK)
        assert.strictEqual(missing.code, grpc.status.NOT_FOUND)

        // A watch the client cancels is logged as CANCELLED once the server has seen the cancel.
        const watch = client.WatchAuthRequest({ authId: created })
        yield* Effect.callback<void>((resume) => void watch.once("data", () => resume(Effect.void)))
        watch.on("error", () => {})
        watch.cancel()
        const deadline = Date.now() + 10_000
        while (callLines(logged).length < 4 && Date.now() < deadline) yield* Effect.sleep("10 millis")
        // One whose deadline passes, as DEADLINE_EXCEEDED.
        const late = client.WatchAuthRequest({ authId: created }, { deadline: Date.now() + 300 })
        late.on("data", () => {})
        yield* Effect.callback<void>((resume) => void late.once("error", () => resume(Effect.void)))
        while (callLines(logged).length < 5 && Date.now() < deadline) yield* Effect.sleep("10 millis")

        const lines = callLines(logged)
        assert.deepStrictEqual(
          lines.map(({ method, code, error }) => ({ method, code, error })),
          [
            { method: "gatehouse.v1.AuthService/CreateAuthRequest", code: "OK", error: undefined },
            { method: "gatehouse.v1.AuthService/GetAuthRequest", code: "OK", error: undefined },
            { method: "gatehouse.v1.AuthService/GetAuthRequest", code: "NOT_FOUND", error: "not_found" },
            { method: "gatehouse.v1.AuthService/WatchAuthRequest", code: "CANCELLED", error: undefined },
            { method: "gatehouse.v1.AuthService/WatchAuthRequest", code: "DEADLINE_EXCEEDED", error: undefined }
          ]
        )
        for (const line of lines) {
          assert.isNumber(line.duration_ms)
          assert.match(String(line.request_id), /^[0-9a-f-]{36}$/)
        }
        // The id in the trailers, success or not, is the one in the line.
        assert.deepStrictEqual(found.metadata.get("x-request-id"), [lines[1]!.request_id])
        assert.deepStrictEqual(missing.metadata.get("x-request-id"), [lines[2]!.request_id])
        assert.strictEqual(new Set(lines.map((line) => line.request_id)).size, 5)
      }).pipe(Effect.scoped, Effect.provide(grpcServerLayer().pipe(Layer.provide(Logger.layer([capture])))))
    }
  )

  it.live("below Info, no line", () => {
    const logged: Array<Logged> = []
    const capture = Logger.make((options) => {
      logged.push({ message: options.message, annotations: {} })
    })
    return Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const status = yield* statusOf(client, `ghreq_${"m".repeat(24)}`)
      assert.strictEqual(status.code, grpc.status.NOT_FOUND)
      assert.deepStrictEqual(callLines(logged), [])
    }).pipe(
      Effect.scoped,
      Effect.provide(
        grpcServerLayer().pipe(
          Layer.provide(Logger.layer([capture])),
          Layer.provide(Layer.succeed(References.MinimumLogLevel, "Warn"))
        )
      )
    )
  })
})
