import { createRequire } from "node:module"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import { Effect } from "effect"
import { GrpcServerAddress } from "../src/index.js"
import { grpcServerLayer } from "./support/GrpcHarness.js"

// The reflection protocol as grpcurl speaks it (grpc.reflection.v1): a bidirectional stream of requests.
const reflectionProto = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json")),
  "build/proto/grpc/reflection/v1/reflection.proto"
)

type ReflectionClient = grpc.Client & {
  ServerReflectionInfo: () => grpc.ClientDuplexStream<object, Record<string, any>>
}

const reflectionClient = Effect.gen(function* () {
  const address = yield* GrpcServerAddress
  const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto, { keepCase: true })) as never as {
    grpc: { reflection: { v1: { ServerReflection: new (a: string, c: grpc.ChannelCredentials) => grpc.Client } } }
  }
  const client = new loaded.grpc.reflection.v1.ServerReflection(
    `127.0.0.1:${address.port}`,
    grpc.credentials.createInsecure()
  ) as ReflectionClient
  yield* Effect.addFinalizer(() => Effect.sync(() => client.close()))
  return client
})

/** The first answer on a reflection stream (to a `list_services`), or how the stream ended ("<code>: <details>"). */
const firstAnswer = (call: grpc.ClientDuplexStream<object, Record<string, any>>) =>
  Effect.callback<unknown>((resume) => {
    call.once("data", (message) => resume(Effect.succeed(message)))
    call.once("error", (error: grpc.ServiceError) => resume(Effect.succeed(`${error.code}: ${error.details}`)))
    call.write({ list_services: "" })
  })

describe("server reflection", () => {
  it.effect("lists the services and describes gatehouse.v1.AuthService, as grpcurl asks", () =>
    Effect.gen(function* () {
      const client = yield* reflectionClient
      const answers = yield* Effect.callback<Array<Record<string, any>>>((resume) => {
        const call = client.ServerReflectionInfo()
        const seen: Array<Record<string, any>> = []
        call.on("data", (message) => {
          seen.push(message)
          if (seen.length === 2) call.end()
        })
        call.on("end", () => resume(Effect.succeed(seen)))
        call.on("error", (error) => resume(Effect.die(error)))
        call.write({ list_services: "" })
        call.write({ file_containing_symbol: "gatehouse.v1.AuthService" })
      })
      const services = answers[0]!.list_services_response.service.map((s: { name: string }) => s.name)
      assert.deepStrictEqual(services, ["gatehouse.v1.AuthService"])
      const files = answers[1]!.file_descriptor_response.file_descriptor_proto as Array<Buffer>
      assert.isAbove(files.length, 0)
      assert.include(Buffer.concat(files).toString("latin1"), "AuthApprove")
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("a reflection stream takes a keyless stream place: a client cannot hold them past its cap", () =>
    Effect.gen(function* () {
      const client = yield* reflectionClient
      const first = client.ServerReflectionInfo()
      first.on("error", () => {})
      assert.isObject(yield* firstAnswer(first))
      const second = client.ServerReflectionInfo()
      second.on("error", () => {})
      assert.strictEqual(
        yield* firstAnswer(second),
        "8: too many health and reflection streams from 127.0.0.1 (limit 1)"
      )
      first.end()
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ limits: { publicStreamsPerClient: 1 } })))
  )
})
