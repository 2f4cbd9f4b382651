import { isIP } from "node:net"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Option from "effect/Option"

/** Whether an address is one of the reverse proxies whose `X-Forwarded-For` is believed. */
export type TrustedProxy = (address: string) => boolean

// An IPv4-mapped IPv6 address counts as its IPv4 address: one key per machine.
const normalized = (address: string) => (address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address)

const socketAddressOf = (request: HttpServerRequest.HttpServerRequest) =>
  normalized(Option.getOrElse(request.remoteAddress, () => "unknown"))

// Decided once per request by the outermost middleware, read by everything after it (limits, sign-in, logs); kept
// on the request itself (its `source`) like its id, under a key only this module knows (see RequestIds).
const clientKey: unique symbol = Symbol("@gatehouse-edge/transport-http/clientAddress")

interface WithClientAddress {
  [clientKey]?: string
}

const sourceOf = (request: HttpServerRequest.HttpServerRequest): WithClientAddress | undefined =>
  typeof request.source === "object" && request.source !== null ? (request.source as WithClientAddress) : undefined

/**
 * Decides who the client of a request is and remembers it for {@link clientAddressOf}: the socket's peer, unless
 * that peer is a trusted proxy; then `X-Forwarded-For` is read from the right — each hop a trusted proxy appended —
 * and the first address that is not a trusted proxy is the client. A hop that is not an address ends the walk at
 * the last trusted one (a client can write anything to the left of what its proxy appended, never to the right).
 */
export const decideClientAddress = (
  request: HttpServerRequest.HttpServerRequest,
  trusted: TrustedProxy | undefined
): string => {
  let client = socketAddressOf(request)
  if (trusted?.(client) === true) {
    const header = request.headers["x-forwarded-for"]
    const hops = header === undefined ? [] : header.split(",").map((hop) => normalized(hop.trim()))
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!
      if (isIP(hop) === 0) break
      client = hop
      if (!trusted(hop)) break
    }
  }
  const source = sourceOf(request)
  if (source !== undefined) source[clientKey] = client
  return client
}

/** The client's address as decided for this request (see {@link decideClientAddress}), else the socket's peer. */
export const clientAddressOf = (request: HttpServerRequest.HttpServerRequest): string =>
  sourceOf(request)?.[clientKey] ?? socketAddressOf(request)
