import type * as grpc from "@grpc/grpc-js"
import { ReflectionService } from "@grpc/reflection"
import type { CallLimits } from "./CallLimits.js"
import { servePublicStream } from "./PublicStreamPlace.js"

type ReflectionCall = grpc.ServerDuplexStream<unknown, unknown>

/**
 * Adds server reflection (`grpc.reflection` v1 and v1alpha, from @grpc/reflection, what grpcurl asks) with what a
 * public, unauthenticated stream needs besides: each `ServerReflectionInfo` takes a place within the listener's
 * caps on keyless streams (RESOURCE_EXHAUSTED past them), as health watches do, so a client cannot hold reflection
 * streams without end. The returned function is for shutdown: the open ones end.
 */
export const addReflectionService = (
  server: grpc.Server,
  limits: CallLimits,
  definition: ConstructorParameters<typeof ReflectionService>[0]
): (() => void) => {
  const open = new Set<ReflectionCall>()
  const counted = (info: grpc.handleBidiStreamingCall<unknown, unknown>) => (call: ReflectionCall) =>
    servePublicStream(limits, open, call, () => info(call))
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
