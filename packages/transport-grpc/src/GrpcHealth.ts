import type * as grpc from "@grpc/grpc-js"
import { HealthImplementation, type ServingStatus } from "grpc-health-check"
import type { CallLimits } from "./CallLimits.js"
import { servePublicStream } from "./PublicStreamPlace.js"

/** The services health checking answers for: the server as a whole (`""`) and the AuthService. */
const servedNames = ["", "gatehouse.v1.AuthService"] as const

/**
 * Adds `grpc.health.v1.Health` (from grpc-health-check) to a listener, with what a public, unauthenticated
 * endpoint needs besides: a `Watch` takes a place within the listener's caps on keyless streams (RESOURCE_EXHAUSTED
 * past them; never one of the authenticated watches'), and a `Watch` of a name the server does not serve is
 * answered `SERVICE_UNKNOWN` and held without being registered (the library keeps a watcher set for every name
 * asked for, forever: any client could grow it). The returned function is for shutdown: every status turns
 * NOT_SERVING, which open watches receive, and they end.
 */
export const addHealthService = (server: grpc.Server, limits: CallLimits): (() => void) => {
  const health = new HealthImplementation(Object.fromEntries(servedNames.map((name) => [name, "SERVING"])))
  const served = new Set<string>(servedNames)
  const open = new Set<grpc.ServerWritableStream<{ service: string }, unknown>>()
  health.addToServer({
    addService: (service, implementation) => {
      const watch = implementation.watch as grpc.handleServerStreamingCall<{ service: string }, unknown>
      server.addService(service as unknown as grpc.ServiceDefinition, {
        ...(implementation as grpc.UntypedServiceImplementation),
        watch: (call: grpc.ServerWritableStream<{ service: string }, unknown>) =>
          servePublicStream(limits, open, call, () => {
            if (served.has(call.request.service)) return watch(call)
            call.write({ status: "SERVICE_UNKNOWN" })
          })
      })
    }
  })
  const notServing: ServingStatus = "NOT_SERVING"
  return () => {
    for (const name of servedNames) health.setStatus(name, notServing)
    for (const call of open) call.end()
  }
}
