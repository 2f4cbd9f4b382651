import type { RouteEntry } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { print } from "./AuthOutput.js"
import { untilCtrlC } from "./Following.js"
import { httpFlags, withClient } from "./HttpConnection.js"
import { followOptions, reconnectFlag } from "./Reconnecting.js"
import { formatLatency, formatSeconds, formatTable, plural } from "./Table.js"

// An IPv6 address is bracketed before its port, as in a URL.
const hostPort = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`

/** Where the route sends its traffic: its target, or the directory a file server serves. */
const target = (r: RouteEntry) => (r.scheme === "fileserver" ? (r.root ?? "") : hostPort(r.host, r.port.target))

/** Where a TCP/UDP route listens; HTTP routes share the server's entrypoint (`-`). */
const listen = (r: RouteEntry) =>
  r.listener !== undefined
    ? `${r.listener.network} ${hostPort(r.listener.address, r.listener.port)}`
    : r.port.listening === 0
      ? "-"
      : `:${r.port.listening}`

// The schemes whose check is an HTTP request (its method and path mean something); the others connect or probe.
const httpSchemes = new Set(["http", "https", "h2c"])

const milliseconds = (ms: number) => (ms % 1000 === 0 ? formatSeconds(ms / 1000) : `${ms} ms`)

const health = (r: RouteEntry) => (r.excluded ? `${r.health.status} (excluded)` : r.health.status)

/** The route list as a table, sorted by alias, and a line counting them. */
export const formatRouteList = (routes: ReadonlyArray<RouteEntry>): ReadonlyArray<string> => {
  if (routes.length === 0) return ["no routes"]
  const sorted = [...routes].sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0))
  const rows = sorted.map((r) => [
    r.alias,
    r.scheme,
    listen(r),
    target(r),
    health(r),
    formatLatency(r.health.latency_ms),
    r.provider
  ])
  const header = ["ALIAS", "SCHEME", "LISTEN", "TARGET", "HEALTH", "LATENCY", "PROVIDER"]
  return [
    ...formatTable(header, rows, [false, false, false, false, false, true, false]),
    plural(routes.length, "route")
  ]
}

/** One route in a few lines: what it is, where it came from, its health and how it is checked. */
export const formatRoute = (r: RouteEntry): ReadonlyArray<string> => {
  const check = r.healthcheck
  const fields: ReadonlyArray<readonly [string, string]> = [
    ["alias", r.alias],
    ["scheme", r.scheme],
    ["listen", listen(r)],
    [r.scheme === "fileserver" ? "root" : "target", target(r)],
    ["provider", r.provider],
    ["excluded", r.excluded ? "yes (not served)" : "no"],
    [
      "health",
      `${r.health.status} for ${formatSeconds(r.health.uptime_s)}, latency ${formatLatency(r.health.latency_ms)}, ` +
        `last check ${r.health.last_check ?? "never"}`
    ],
    [
      "healthcheck",
      check === null || check.disable
        ? "disabled"
        : `${httpSchemes.has(r.scheme) ? `${check.use_get ? "GET" : "HEAD"} ${check.path} ` : ""}` +
          `every ${milliseconds(check.interval_ms)}, timeout ${milliseconds(check.timeout_ms)}, retries ${check.retries}`
    ]
  ]
  return fields.map(([name, value]) => `${name.padEnd(12)}${value}`)
}

const list = Command.make(
  "list",
  {
    ...httpFlags,
    watch: Flag.Boolean("watch").pipe(
      Flag.withDescription("Print the list again on every change until Ctrl-C"),
      Flag.withDefault(false)
    ),
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.routes.list")(function* (flags) {
    // Watching, each list is one JSON line (a stream of documents) or a table after a blank line.
    const show = (routes: ReadonlyArray<RouteEntry>) =>
      flags.json
        ? Console.log(JSON.stringify(routes))
        : Effect.forEach(["", ...formatRouteList(routes)], (line) => Console.log(line), { discard: true })
    yield* withClient(flags, (c) =>
      flags.watch
        ? untilCtrlC(Stream.runForEach(c.routes.watch(followOptions(flags.reconnect)), show))
        : Effect.flatMap(c.routes.list(), (routes) => print(flags.json, routes, formatRouteList))
    )
  })
).pipe(Command.withDescription("The active routes: scheme, listener, target, health, provider (--watch: follow)"))

const get = Command.make(
  "get",
  { ...httpFlags, alias: Argument.String("alias").pipe(Argument.withDescription("The route's alias")) },
  Effect.fn("gatehouse.routes.get")(function* (flags) {
    const route = yield* withClient(flags, (c) => c.routes.get({ params: { alias: flags.alias } }))
    yield* print(flags.json, route, formatRoute)
  })
).pipe(Command.withDescription("One route: its settings, where it came from and its health"))

/** `gatehouse routes ...`: the active route table over the HTTP API. */
export const routesCommand = Command.make("routes").pipe(
  Command.withDescription("The active routes: list (--watch), get (over HTTP)"),
  Command.withSubcommands([list, get])
)
