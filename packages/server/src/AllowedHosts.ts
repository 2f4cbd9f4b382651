import * as os from "node:os"

const isWildcard = (host: string) => host === "0.0.0.0" || host === "::"

/**
 * The names clients may reach this server by: the configured ones (`http.allowedHosts`, which already holds the
 * loopback names and a specific listen host), and, when the server listens on every interface, this machine's
 * host name and interface addresses — the names a LAN client uses without any configuration.
 */
export const allowedHosts = (listenHost: string, configured: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (!isWildcard(listenHost)) return configured
  const interfaces = Object.values(os.networkInterfaces()).flatMap((addresses) =>
    // A link-local IPv6 address carries its zone (`fe80::1%eth0`), which never appears in a Host header.
    (addresses ?? []).map((address) => address.address.replace(/%.*$/, ""))
  )
  return [...new Set([...configured, os.hostname().toLowerCase(), ...interfaces])]
}
