import { isIP } from "node:net"
import { formatListenAddress, type ListenAddress } from "@gatehouse-edge/core/config"

// 0.0.0.0, and :: however it is written (0:0::0).
const isUnspecified = (host: string) => host === "0.0.0.0" || (isIP(host) === 6 && /^[0:]+$/.test(host))

/**
 * Where a client on this machine calls a server listening on `address` (`host:port`): a server listening on every
 * interface (0.0.0.0, [::]) is called on loopback, as no connection goes to the unspecified address, nor would a
 * certificate name it.
 */
export const dialAddress = (address: ListenAddress): string => {
  if (!isUnspecified(address.host)) return formatListenAddress(address)
  return formatListenAddress({ ...address, host: isIP(address.host) === 6 ? "::1" : "127.0.0.1" })
}
