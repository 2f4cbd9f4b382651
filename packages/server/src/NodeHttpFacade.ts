import { createRequire } from "node:module"

/**
 * Builds `node:http`'s ES module facade without loading undici, before anything imports `node:http`.
 *
 * Since Node 22, `node:http` exports `WebSocket`, `CloseEvent` and `MessageEvent` as lazy getters that load Node's
 * bundled undici. The first ES module import of `node:http` (here: `@effect/platform-node`'s server) builds the
 * module's facade by reading every export, so it runs those getters and loads undici, which the server never uses:
 * 3-4 MiB of an idle server's memory on Node 24 (bench/README.md, "Server memory"; nodejs/node#59686). A `require`
 * reads no export it is not asked for.
 *
 * So the facade is built here while the three are plain `undefined`, and the getters are put back at once:
 * `require("node:http").WebSocket` still loads undici when asked for. Only a named ES import of one of the three from
 * `node:http` in this process sees `undefined` (nothing in the server imports them; `globalThis.WebSocket` is
 * separate and unaffected). Imported first by the `gatehouse` command only: a library does not patch Node for the
 * program that embeds it.
 */
const http = createRequire(import.meta.url)("node:http") as Record<string, unknown>
const lazyExports = ["WebSocket", "CloseEvent", "MessageEvent"].flatMap((name) => {
  const descriptor = Object.getOwnPropertyDescriptor(http, name)
  return descriptor?.get !== undefined && descriptor.configurable === true ? [{ name, descriptor }] : []
})

if (lazyExports.length > 0) {
  for (const { descriptor, name } of lazyExports)
    Object.defineProperty(http, name, {
      value: undefined,
      writable: true,
      enumerable: descriptor.enumerable ?? true,
      configurable: true
    })
  // A built-in module's import does not fail; if it did, the command could not start anyway.
  await import("node:http")
  for (const { descriptor, name } of lazyExports) Object.defineProperty(http, name, descriptor)
}
