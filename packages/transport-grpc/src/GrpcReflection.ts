import type * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import type { CallLimits } from "./CallLimits.js"
import { makeDescriptorIndex } from "./DescriptorIndex.js"
import { servePublicStream } from "./PublicStreamPlace.js"
import { type ReflectionRequest, type ReflectionResponse, reflectionStream } from "./ReflectionAnswers.js"
import { servedDescriptors } from "./ServedDescriptors.js"

type ReflectionCall = grpc.ServerDuplexStream<ReflectionRequest, ReflectionResponse>

/** grpcurl asks v1 and falls back to v1alpha, which older clients speak; the two have the same messages. */
const reflectionServices = ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]

/**
 * Adds server reflection (`grpc.reflection` v1 and v1alpha, what grpcurl asks) from the files protoc compiled
 * ({@link servedDescriptors}): their real names and imports, so that a client can link what it receives. (The
 * @grpc/reflection package rebuilds files from proto-loader's definitions instead: one made-up file per package,
 * without imports, which protoc and grpcurl reject; grpc/grpc-node#3034.) Each `ServerReflectionInfo` takes a place
 * within the listener's caps on keyless streams (RESOURCE_EXHAUSTED past them), as health watches do, so a client
 * cannot hold reflection streams without end. The returned function is for shutdown: the open ones end.
 */
export const addReflectionService = (server: grpc.Server, limits: CallLimits): (() => void) => {
  const index = makeDescriptorIndex(servedDescriptors.map((base64) => Buffer.from(base64, "base64")))
  const definitions = protoLoader.loadFileDescriptorSetFromObject(
    {
      file: reflectionServices.map((service) => {
        const file = index.fileContainingSymbol(service)
        if (file === undefined) throw new Error(`the served descriptors lack ${service}`)
        return file.proto
      })
    },
    { keepCase: true, oneofs: true }
  )
  const open = new Set<ReflectionCall>()
  const serve = (call: ReflectionCall) =>
    servePublicStream(limits, open, call, () => {
      const answer = reflectionStream(index)
      call.on("data", (request: ReflectionRequest) => {
        // A client that asks without reading the answers is held back (HTTP/2 flow control) rather than buffered.
        if (!call.write(answer(request))) {
          call.pause()
          call.once("drain", () => call.resume())
        }
      })
      call.on("end", () => call.end())
    })
  for (const service of reflectionServices)
    server.addService(definitions[service] as grpc.ServiceDefinition, { ServerReflectionInfo: serve })
  return () => {
    for (const call of open) call.end()
  }
}
