import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"

/** The client's address as one key per machine: an IPv4-mapped IPv6 address counts as its IPv4 address. */
export const clientAddressOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const address = Option.getOrElse(request.remoteAddress, () => "unknown")
  return address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address
}
