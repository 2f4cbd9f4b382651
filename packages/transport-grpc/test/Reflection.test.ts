import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"
import { requireTool } from "../../../test/support/e2e.js"
import { GrpcServerAddress } from "../src/index.js"
import { protobufjsRootOf, protocOverSet, unresolvedReferences } from "./support/DescriptorLinking.js"
import { grpcServerLayer } from "./support/GrpcHarness.js"
import {
  filesOf,
  openReflectionSession,
  type ReflectionAnswer,
  type ReflectionSession,
  reflectionClient,
  resolveAsGrpcurl
} from "./support/ReflectionClient.js"

const session = (version?: "v1" | "v1alpha") =>
  Effect.flatMap(GrpcServerAddress, (address) =>
    Effect.flatMap(reflectionClient(address.port, version), openReflectionSession)
  )

const namesOf = (answer: ReflectionAnswer) => filesOf(answer).map((file) => file.proto.name)

const servedServices = [
  "gatehouse.v1.AuthService",
  "grpc.health.v1.Health",
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection"
]

/** The first answer on a fresh reflection stream (to `list_services`), or how it ended ("<code>: <details>"). */
const firstAnswer = (stream: ReflectionSession["stream"]) =>
  Effect.callback<unknown>((resume) => {
    stream.once("data", (message) => resume(Effect.succeed(message)))
    stream.once("error", (error: { code: number; details: string }) =>
      resume(Effect.succeed(`${error.code}: ${error.details}`))
    )
    stream.write({ list_services: "" })
  })

describe("server reflection", () => {
  it.effect("describes gatehouse.v1.AuthService in files that link, as grpcurl fetches them", () =>
    Effect.gen(function* () {
      const files = yield* resolveAsGrpcurl(yield* session(), "gatehouse.v1.AuthService")
      // The real files, under their real names, each naming what it imports (a linker refuses anything else).
      assert.deepStrictEqual(unresolvedReferences(files), [])
      assert.sameMembers(
        [...files.keys()],
        [
          "gatehouse/v1/auth.proto",
          "gatehouse/v1/node.proto",
          "gatehouse/v1/options.proto",
          "google/protobuf/timestamp.proto",
          "google/protobuf/descriptor.proto"
        ]
      )
      assert.sameMembers(
        [...files.get("gatehouse/v1/auth.proto")!.proto.dependency],
        ["gatehouse/v1/node.proto", "gatehouse/v1/options.proto", "google/protobuf/timestamp.proto"]
      )
      // Linked as one set, every type is the one the protos declare.
      const root = protobufjsRootOf(files.values())
      const create = root.lookupType("gatehouse.v1.CreateAuthRequestRequest")
      assert.deepStrictEqual(
        create.fieldsArray.map((field) => [field.name, field.resolvedType?.fullName]),
        [
          ["kind", ".gatehouse.v1.AuthRequestKind"],
          ["registration", ".gatehouse.v1.Registration"],
          ["ssh_check", ".gatehouse.v1.SshCheck"]
        ]
      )
      const watch = root.lookupService("gatehouse.v1.AuthService").methods.WatchAuthRequest!
      assert.strictEqual(watch.resolvedRequestType?.fullName, ".gatehouse.v1.WatchAuthRequestRequest")
      assert.strictEqual(watch.resolvedResponseType?.fullName, ".gatehouse.v1.AuthRequest")
      assert.isTrue(watch.responseStream)
      const authRequest = root.lookupType("gatehouse.v1.AuthRequest")
      assert.strictEqual(authRequest.fields.created_at!.resolvedType?.fullName, ".google.protobuf.Timestamp")
      assert.strictEqual(authRequest.fields.node!.resolvedType?.fullName, ".gatehouse.v1.Node")
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  const protoc = requireTool("protoc")
  it.effect.skipIf(protoc.skip)("the files link in protoc, the method options included", () =>
    Effect.gen(function* () {
      const files = yield* resolveAsGrpcurl(yield* session(), "gatehouse.v1.AuthService")
      // Every file received, linked; the first is the one declaring the service.
      const names = [...files.keys()]
      const linked = protocOverSet(files.values(), ["--descriptor_set_out=/dev/null", ...names])
      assert.strictEqual(linked.status, 0, linked.stderr)
      // Messages are encoded by the types' names, as grpcurl encodes a request it was given as text.
      for (const [type, text] of [
        ["gatehouse.v1.CreateAuthRequestRequest", 'kind: AUTH_REQUEST_KIND_SSH_CHECK ssh_check { src: "127.0.0.1" }'],
        ["gatehouse.v1.AuthRequest", "created_at { seconds: 1 } node { last_seen { nanos: 1 } }"],
        ["gatehouse.v1.WatchAuthRequestRequest", 'auth_id: "ghreq_x"']
      ] as const) {
        const encoded = protocOverSet(files.values(), [`--encode=${type}`, ...names], Buffer.from(text))
        assert.strictEqual(encoded.status, 0, `${type}: ${encoded.stderr}`)
      }
      // The scope each method needs is in the file, as an extension options.proto declares.
      const options = protocOverSet(
        files.values(),
        ["--decode=google.protobuf.FileDescriptorProto", ...names],
        files.get(names[0]!)!.bytes
      )
      assert.strictEqual(options.status, 0, options.stderr)
      assert.include(options.stdout, '[gatehouse.v1.required_scope]: "auth_requests:create"')
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("lists every service the server runs, each of which it describes (grpcurl describe)", () =>
    Effect.gen(function* () {
      const reflection = yield* session()
      const listed = yield* reflection.ask({ list_services: "*" })
      const services = listed.list_services_response.service.map((s: { name: string }) => s.name)
      assert.sameMembers(services, servedServices)
      for (const service of services) {
        const files = yield* resolveAsGrpcurl(reflection, service)
        assert.deepStrictEqual(unresolvedReferences(files), [], service)
      }
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("answers v1alpha as v1 (clients that predate v1 ask it)", () =>
    Effect.gen(function* () {
      const v1 = yield* session("v1")
      const v1alpha = yield* session("v1alpha")
      for (const request of [{ list_services: "" }, { file_containing_symbol: "gatehouse.v1.AuthService" }])
        assert.deepStrictEqual(yield* v1alpha.ask(request), yield* v1.ask(request))
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("finds any symbol, extensions and extension numbers, and says what it does not have", () =>
    Effect.gen(function* () {
      const reflection = yield* session()
      const fileOf = (symbol: string) =>
        Effect.map(reflection.ask({ file_containing_symbol: symbol }), (answer) => namesOf(answer)[0])
      assert.strictEqual(yield* fileOf("gatehouse.v1.AuthService.WatchAuthRequest"), "gatehouse/v1/auth.proto")
      assert.strictEqual(yield* fileOf("gatehouse.v1.User.created_at"), "gatehouse/v1/node.proto")
      assert.strictEqual(yield* fileOf("gatehouse.v1.REGISTER_METHOD_OIDC"), "gatehouse/v1/node.proto")
      assert.strictEqual(yield* fileOf("gatehouse.v1.required_scope"), "gatehouse/v1/options.proto")
      assert.strictEqual(
        yield* fileOf("grpc.health.v1.HealthCheckResponse.ServingStatus"),
        "grpc/health/v1/health.proto"
      )
      assert.strictEqual(
        yield* fileOf("grpc.reflection.v1.ServerReflectionRequest.message_request"),
        "grpc/reflection/v1/reflection.proto"
      )
      const extension = yield* reflection.ask({
        file_containing_extension: { containing_type: "google.protobuf.MethodOptions", extension_number: 50001 }
      })
      assert.strictEqual(namesOf(extension)[0], "gatehouse/v1/options.proto")
      const numbers = yield* reflection.ask({ all_extension_numbers_of_type: "google.protobuf.MethodOptions" })
      assert.deepStrictEqual(numbers.all_extension_numbers_response, {
        base_type_name: "google.protobuf.MethodOptions",
        extension_number: [50001]
      })
      const none = yield* reflection.ask({ all_extension_numbers_of_type: "gatehouse.v1.AuthRequest" })
      // An empty repeated field is absent on the wire.
      assert.deepStrictEqual(none.all_extension_numbers_response, { base_type_name: "gatehouse.v1.AuthRequest" })
      const NOT_FOUND = 5
      for (const request of [
        { file_containing_symbol: "gatehouse.v1.NoSuchThing" },
        { file_containing_symbol: "gatehouse.v1" },
        { file_by_filename: "gatehouse_v1.proto" },
        { file_containing_extension: { containing_type: "google.protobuf.MethodOptions", extension_number: 50002 } },
        { all_extension_numbers_of_type: "gatehouse.v1.AuthService" }
      ]) {
        const answer = yield* reflection.ask(request)
        assert.strictEqual(answer.error_response?.error_code, NOT_FOUND, JSON.stringify(request))
      }
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("a stream sends the file asked for every time, and each file it imports once", () =>
    Effect.gen(function* () {
      const reflection = yield* session()
      assert.sameMembers(namesOf(yield* reflection.ask({ file_containing_symbol: "gatehouse.v1.AuthService" })), [
        "gatehouse/v1/auth.proto",
        "gatehouse/v1/node.proto",
        "gatehouse/v1/options.proto",
        "google/protobuf/timestamp.proto",
        "google/protobuf/descriptor.proto"
      ])
      assert.deepStrictEqual(namesOf(yield* reflection.ask({ file_containing_symbol: "gatehouse.v1.User" })), [
        "gatehouse/v1/node.proto"
      ])
      assert.deepStrictEqual(namesOf(yield* reflection.ask({ file_by_filename: "gatehouse/v1/node.proto" })), [
        "gatehouse/v1/node.proto"
      ])
      // Another stream starts afresh.
      const other = yield* session()
      assert.deepStrictEqual(namesOf(yield* other.ask({ file_by_filename: "gatehouse/v1/node.proto" })), [
        "gatehouse/v1/node.proto",
        "google/protobuf/timestamp.proto"
      ])
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("a reflection stream takes a keyless stream place: a client cannot hold them past its cap", () =>
    Effect.gen(function* () {
      const first = yield* session()
      first.stream.on("error", () => {})
      assert.isObject(yield* firstAnswer(first.stream))
      const second = yield* session()
      second.stream.on("error", () => {})
      assert.strictEqual(
        yield* firstAnswer(second.stream),
        "8: too many health and reflection streams from 127.0.0.1 (limit 1)"
      )
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ limits: { publicStreamsPerClient: 1 } })))
  )

  it.live("a stopping server ends its reflection streams (OK), rather than making its shutdown wait for them", () =>
    Effect.gen(function* () {
      const serverScope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(grpcServerLayer(), serverScope)
      const reflection = yield* session().pipe(Effect.provide(context))
      assert.isObject(yield* reflection.ask({ list_services: "" }))
      const status = yield* Effect.callback<number>((resume) => {
        reflection.stream.on("status", (status: { code: number }) => resume(Effect.succeed(status.code)))
      }).pipe(Effect.forkChild)
      const stopping = yield* Effect.forkChild(Scope.close(serverScope, Exit.void))
      // OK: the server ended the stream itself (one it left open would be cut after the 10 s grace, not OK).
      assert.strictEqual(yield* Fiber.join(status), 0)
      yield* Fiber.join(stopping)
    }).pipe(Effect.scoped)
  )
})
