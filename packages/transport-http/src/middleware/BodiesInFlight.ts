import { bytesInUnits, clientKeyOf } from "@gatehouse-edge/core/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { clientAddressOf } from "../websocket/ClientAddress.js"
import { errorResponse } from "./ApiResponses.js"

const MiB = 1024 * 1024

/** Bytes the bodies being read may hold together, all clients: a flood of bodies cannot exhaust memory. */
export const DEFAULT_BODY_BYTES_IN_FLIGHT = 64 * MiB

/** Bytes the bodies being read from one client (an address, an IPv6 /64) may hold: one client cannot fill it all. */
export const DEFAULT_BODY_BYTES_IN_FLIGHT_PER_CLIENT = 16 * MiB

/** Seconds a client refused for want of room is told to wait (`Retry-After`). */
const RETRY_AFTER_S = 1

/** How many bytes request bodies may hold while they are read and served. */
export interface BodiesInFlightLimits {
  readonly totalBytes: number
  readonly perClientBytes: number
}

/**
 * The bytes held by the request bodies the server is reading (and keeps until the request is answered). A body
 * counts at its `Content-Length`, or at the most it may grow to when sent chunked, from before its first byte is
 * read: one that does not fit is refused unread, with 503 `unavailable` when all clients together hold the budget
 * and 429 when its own client holds its share (both with `Retry-After`). A file write's body is not counted here:
 * it is read only once its write has room in the files' own queue (64 MiB), which bounds those bodies already.
 */
export interface BodiesInFlightShape {
  readonly limits: BodiesInFlightLimits
  /** Runs `reading` (which reads the body of `request`) with `bytes` counted, or answers without running it. */
  readonly holding: <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    bytes: number,
    reading: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  /** Bytes held now, all clients (for tests and metrics). */
  readonly heldBytes: () => number
}

export const makeBodiesInFlight = (limits: BodiesInFlightLimits): BodiesInFlightShape => {
  let total = 0
  const byClient = new Map<string, number>()
  const release = (client: string, bytes: number) => {
    total -= bytes
    const left = (byClient.get(client) ?? bytes) - bytes
    if (left <= 0) byClient.delete(client)
    else byClient.set(client, left)
  }
  const refused = (status: 429 | 503, message: string) =>
    HttpServerResponse.setHeader(
      errorResponse(status, message, { code: status === 429 ? "rate_limited" : "unavailable" }),
      "retry-after",
      String(RETRY_AFTER_S)
    )

  return {
    limits,
    heldBytes: () => total,
    holding: (request, bytes, reading) => {
      if (bytes <= 0) return reading
      return Effect.uninterruptibleMask((restore) => {
        const client = clientKeyOf(clientAddressOf(request))
        const ofClient = byClient.get(client) ?? 0
        // The client's own share first: a client that fills it is told to slow down, not that the server is busy.
        if (ofClient + bytes > limits.perClientBytes) {
          return Effect.succeed(
            refused(
              429,
              `request bodies from ${client} being read would hold more than ${bytesInUnits(limits.perClientBytes)}: retry shortly`
            )
          )
        }
        if (total + bytes > limits.totalBytes) {
          return Effect.succeed(
            refused(
              503,
              `server busy: the request bodies being read would hold more than ${bytesInUnits(limits.totalBytes)}; try again shortly`
            )
          )
        }
        total += bytes
        byClient.set(client, ofClient + bytes)
        // Counted and its release registered with no interruption in between (see layerApiResponses).
        return Effect.onExit(restore(reading), () => Effect.sync(() => release(client, bytes)))
      })
    }
  }
}

/**
 * The server's {@link BodiesInFlightShape}: `layerHttpApp` gives each server its own, sized by its `HttpLimits`;
 * the default (for routes served another way) has the default sizes.
 */
export const BodiesInFlight = Context.Reference<BodiesInFlightShape>("@gatehouse-edge/transport-http/BodiesInFlight", {
  defaultValue: () =>
    makeBodiesInFlight({
      totalBytes: DEFAULT_BODY_BYTES_IN_FLIGHT,
      perClientBytes: DEFAULT_BODY_BYTES_IN_FLIGHT_PER_CLIENT
    })
})
