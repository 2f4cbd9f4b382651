import { randomUUID } from "node:crypto"
import { RateLimited } from "@gatehouse-edge/core/domain"
import type * as grpc from "@grpc/grpc-js"
import * as Cause from "effect/Cause"
import type { CallLimits } from "./CallLimits.js"
import { callFailure } from "./GrpcStatus.js"

/** A server stream of a service that needs no key (health watches, reflection). */
interface PublicStream {
  readonly getPeer: () => string
  readonly emit: (event: "error", error: Partial<grpc.StatusObject>) => boolean
  readonly once: (event: "cancelled" | "close", listener: () => void) => unknown
}

/**
 * Serves a stream of a public service once it has a place within the listener's caps on such streams (apart from
 * the authenticated watches', which keyless clients must never use up): past them it is refused RESOURCE_EXHAUSTED
 * before `serve` runs. While it runs it is in `open` (for shutdown, which ends them);
 * its place and its entry go when it ends, however it ends.
 */
export const servePublicStream = <C extends PublicStream>(
  limits: CallLimits,
  open: Set<C>,
  call: C,
  serve: () => void
): void => {
  const place = limits.publicStream(call.getPeer())
  if (place instanceof RateLimited) return void call.emit("error", callFailure(Cause.fail(place), randomUUID()).error)
  open.add(call)
  const ended = () => {
    open.delete(call)
    place()
  }
  call.once("cancelled", ended)
  call.once("close", ended)
  serve()
}
