import { createRequire } from "node:module"
import * as path from "node:path"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import { Effect } from "effect"
import descriptor, { type IFileDescriptorProto } from "protobufjs/ext/descriptor/index.js"

/** A reflection answer as proto-loader decodes it (`keepCase`): `file_descriptor_response`, `error_response`, ... */
export type ReflectionAnswer = Record<string, any>

type ReflectionStream = grpc.ClientDuplexStream<object, ReflectionAnswer>

type ReflectionClient = grpc.Client & { ServerReflectionInfo: () => ReflectionStream }

type ReflectionVersion = "v1" | "v1alpha"

// The protocol from @grpc/reflection's copy of the .proto files, not from what the server serves: a client of its own.
const reflectionProto = (version: ReflectionVersion) =>
  path.join(
    path.dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json")),
    `build/proto/grpc/reflection/${version}/reflection.proto`
  )

/** A reflection client (v1, as grpcurl asks first, or v1alpha) of a server on 127.0.0.1, closed with the scope. */
export const reflectionClient = (port: number, version: ReflectionVersion = "v1") =>
  Effect.gen(function* () {
    const loaded = grpc.loadPackageDefinition(
      protoLoader.loadSync(reflectionProto(version), { keepCase: true })
    ) as never as {
      grpc: {
        reflection: Record<
          ReflectionVersion,
          { ServerReflection: new (a: string, c: grpc.ChannelCredentials) => grpc.Client }
        >
      }
    }
    const client = new loaded.grpc.reflection[version].ServerReflection(
      `127.0.0.1:${port}`,
      grpc.credentials.createInsecure()
    ) as ReflectionClient
    yield* Effect.addFinalizer(() => Effect.sync(() => client.close()))
    return client
  })

/** One `ServerReflectionInfo` stream, asked one request at a time; ended with the scope. */
export interface ReflectionSession {
  readonly stream: ReflectionStream
  /** The answer to `request`, or a defect if the stream fails. */
  readonly ask: (request: object) => Effect.Effect<ReflectionAnswer>
}

export const openReflectionSession = (client: ReflectionClient) =>
  Effect.acquireRelease(
    Effect.sync((): ReflectionSession => {
      const stream = client.ServerReflectionInfo()
      const waiting: Array<(answer: Effect.Effect<ReflectionAnswer>) => void> = []
      let failure: unknown
      stream.on("data", (answer: ReflectionAnswer) => waiting.shift()?.(Effect.succeed(answer)))
      stream.on("error", (error) => {
        failure = error
        for (const resume of waiting.splice(0)) resume(Effect.die(error))
      })
      return {
        stream,
        ask: (request) =>
          Effect.callback<ReflectionAnswer>((resume) => {
            if (failure !== undefined) return resume(Effect.die(failure))
            waiting.push(resume)
            stream.write(request)
          })
      }
    }),
    ({ stream }) => Effect.sync(() => stream.end())
  )

/** A file as a reflection answer carries it: protoc's bytes, and what they decode to. */
export interface ReceivedFile {
  readonly bytes: Uint8Array
  readonly proto: Omit<IFileDescriptorProto, "name" | "dependency"> & {
    readonly name: string
    readonly dependency: ReadonlyArray<string>
  }
}

/** The files of a `file_descriptor_response`; a defect for any other answer. */
export const filesOf = (answer: ReflectionAnswer): Array<ReceivedFile> => {
  const files = answer.file_descriptor_response?.file_descriptor_proto as Array<Uint8Array> | undefined
  if (files === undefined) throw new Error(`not a file answer: ${JSON.stringify(answer.error_response ?? answer)}`)
  return files.map((bytes) => ({
    bytes,
    proto: descriptor.FileDescriptorProto.decode(bytes) as unknown as ReceivedFile["proto"]
  }))
}

/**
 * What grpcurl does to describe a symbol: `file_containing_symbol`, then `file_by_filename` for every import it has
 * not received, until it has every file it needs to link. The files by name, in the order received.
 */
export const resolveAsGrpcurl = (session: ReflectionSession, symbol: string) =>
  Effect.gen(function* () {
    const received = new Map<string, ReceivedFile>()
    const keep = (files: ReadonlyArray<ReceivedFile>) => {
      for (const file of files) if (!received.has(file.proto.name)) received.set(file.proto.name, file)
    }
    keep(filesOf(yield* session.ask({ file_containing_symbol: symbol })))
    for (let missing = nextMissing(received); missing !== undefined; missing = nextMissing(received)) {
      keep(filesOf(yield* session.ask({ file_by_filename: missing })))
      if (!received.has(missing)) throw new Error(`asked for ${missing}, received other files`)
    }
    return received
  })

const nextMissing = (received: ReadonlyMap<string, ReceivedFile>) =>
  [...received.values()].flatMap((file) => file.proto.dependency).find((name) => !received.has(name))
