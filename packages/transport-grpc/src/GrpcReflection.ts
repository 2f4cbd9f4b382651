import { randomUUID } from "node:crypto"
import { RateLimited } from "@gatehouse-edge/core/domain"
import type * as grpc from "@grpc/grpc-js"
import { ReflectionService } from "@grpc/reflection"
import * as Cause from "effect/Cause"
import type { CallLimits } from "./CallLimits.js"
import { callFailure } from "./GrpcStatus.js"

type ReflectionCall = grpc.ServerDuplexStream<unknown, unknown>

/**
 * Adds server reflection (`grpc.reflection` v1 and v1alpha, from @grpc/reflection, what grpcurl asks) with what a
 * public, unauthenticated stream needs besides: each `ServerReflectionInfo` takes a stream place within the
 * listener's caps (RESOURCE_EXHAUSTED past them), like every other stream, so a client cannot hold reflection
 * streams without end. The returned function is for shutdown: the open ones end.
 */
export const addReflectionService = (
  server: grpc.Server,
  limits: CallLimits,
  definition: ConstructorParameters<typeof ReflectionService>[0]
): (() => void) => {
  const open = new Set<ReflectionCall>()
  const counted = (info: grpc.handleBidiStreamingCall<unknown, unknown>) => (call: ReflectionCall) => {
    const place = limits.stream(call.getPeer())
    if (place instanceof RateLimited) return void call.emit("error", callFailure(Cause.fail(place), randomUUID()).error)
    open.add(call)
    const ended = () => {
      open.delete(call)
      place()
    }
    call.once("cancelled", ended)
    call.once("close", ended)
    info(call)
  }
  new ReflectionService(definition).addToServer({
    addService: (service: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation) =>
      server.addService(service, {
        ServerReflectionInfo: counted(
          implementation.ServerReflectionInfo as grpc.handleBidiStreamingCall<unknown, unknown>
        )
      })
  } as Pick<grpc.Server, "addService"> as grpc.Server)
  return () => {
    for (const call of open) call.end()
  }
}
