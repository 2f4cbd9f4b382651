import * as Effect from "effect/Effect"

let dropping = false

/**
 * Keeps Node's DEP0123 warning ("Setting the TLS ServerName to an IP address is not permitted by RFC 6066") off
 * stderr, where it came with every gRPC command over TLS to an IP address: grpc-js always sends the host it calls
 * as the TLS server name, and has no option not to (`grpc.ssl_target_name_override` only sends another name). The
 * certificate is still checked against the IP address. Every other warning is printed as before, by Node's own
 * printer, which is a listener of `warning` that this one stands in front of.
 */
export const dropIpServernameWarning = Effect.sync(() => {
  if (dropping) return
  dropping = true
  const printers = process.listeners("warning")
  for (const printer of printers) process.removeListener("warning", printer)
  process.on("warning", (warning) => {
    if ((warning as { readonly code?: unknown }).code === "DEP0123") return
    for (const printer of printers) printer.call(process, warning)
  })
})
