import { type HealthMap, ServerHealthKey } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { print } from "./AuthOutput.js"
import { untilCtrlC } from "./Following.js"
import { httpFlags, withClient } from "./HttpConnection.js"
import { followOptions, reconnectFlag } from "./Reconnecting.js"
import { formatLatency, formatSeconds, formatTable, plural } from "./Table.js"

/**
 * The health map as a table sorted by alias (the server's own `@gatehouse` entry, present while a route source has
 * a problem, sorts first), and a line counting the routes and those not healthy (the server's entry is no route).
 */
export const formatHealthMap = (map: HealthMap): ReadonlyArray<string> => {
  const aliases = Object.keys(map).sort()
  if (aliases.length === 0) return ["no routes"]
  const rows = aliases.map((alias) => {
    const info = map[alias]!
    return [
      alias,
      info.status,
      formatSeconds(info.uptime_s),
      formatLatency(info.latency_ms),
      info.last_check ?? "never"
    ]
  })
  const routes = aliases.filter((alias) => alias !== ServerHealthKey)
  const unhealthy = routes.filter((alias) => map[alias]!.status !== "healthy").length
  return [
    ...formatTable(["ALIAS", "STATUS", "FOR", "LATENCY", "LAST CHECK"], rows, [false, false, true, true, false]),
    `${plural(routes.length, "route")}, ${unhealthy} not healthy`
  ]
}

/** `gatehouse health`: every route's health from the HTTP API, or followed with `--watch`. */
export const healthCommand = Command.make(
  "health",
  {
    ...httpFlags,
    watch: Flag.Boolean("watch").pipe(
      Flag.withDescription("Print the map again when a status changes (at most once a second) until Ctrl-C"),
      Flag.withDefault(false)
    ),
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.health")(function* (flags) {
    // Watching, each map is one JSON line (a stream of documents) or a table after a blank line.
    const show = (map: HealthMap) =>
      flags.json
        ? Console.log(JSON.stringify(map))
        : Effect.forEach(["", ...formatHealthMap(map)], (line) => Console.log(line), { discard: true })
    yield* withClient(flags, (c) =>
      flags.watch
        ? untilCtrlC(Stream.runForEach(c.health.watch(followOptions(flags.reconnect)), show))
        : Effect.flatMap(c.health.get(), (map) => print(flags.json, map, formatHealthMap))
    )
  })
).pipe(Command.withDescription("Every route's health: status, for how long, latency, last check (--watch: follow)"))
