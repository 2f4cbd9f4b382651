import type { RouteUptimeAggregate, RouteUptimePage, UptimePeriod } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { untilCtrlC } from "./Following.js"
import { httpFlags, withClient } from "./HttpConnection.js"
import { followOptions, reconnectFlag } from "./Reconnecting.js"
import { formatLatency, formatTable } from "./Table.js"
import { historyEndOf, historyLegend, historyLine, pointWidthMs } from "./UptimeHistory.js"

const percent = (fraction: number) => `${(fraction * 100).toFixed(2)}%`

const row = (r: RouteUptimeAggregate, history: string) => [
  r.alias,
  r.is_excluded ? `${r.current_status} (excluded)` : r.current_status,
  percent(r.uptime),
  percent(r.downtime),
  percent(r.idle),
  formatLatency(r.avg_latency_ms),
  history
]

/**
 * The page as a table: one route per line, columns padded to the widest value, and a line saying what it shows.
 * Every row's history covers the same slots of time, up to the page's newest point.
 */
export const formatUptimePage = (page: RouteUptimePage, period: UptimePeriod): ReadonlyArray<string> => {
  if (page.total === 0) return [`no routes (${period})`]
  const header = ["ALIAS", "STATUS", "UP", "DOWN", "IDLE", "AVG LATENCY", "HISTORY (oldest → newest)"]
  const end = historyEndOf(page.data)
  const historyOf = (r: RouteUptimeAggregate) =>
    end === undefined ? "" : historyLine(r.statuses, pointWidthMs[period], end)
  // Text columns left-aligned, numbers right-aligned.
  const lines = formatTable(
    header,
    page.data.map((r) => row(r, historyOf(r))),
    [false, false, true, true, true, true, false]
  )
  const shown = page.data.length === page.total ? `${page.total}` : `${page.data.length} of ${page.total}`
  return [...lines, `${shown} route${page.total === 1 ? "" : "s"}, ${period}; history: ${historyLegend}`]
}

/** `gatehouse uptime`: the routes' uptime over a period, from the HTTP API. */
export const uptimeCommand = Command.make(
  "uptime",
  {
    ...httpFlags,
    period: Flag.Literals("period", ["5m", "15m", "1h", "1d", "1mo"]).pipe(
      Flag.withDescription("The period: 5m, 15m, 1h, 1d (default) or 1mo (30 days)"),
      Flag.withDefault("1d" as const)
    ),
    keyword: Flag.String("keyword").pipe(
      Flag.withDescription("Only aliases with these characters in this order (case-insensitive), e.g. a substring"),
      Flag.optional
    ),
    limit: Flag.Int("limit").pipe(Flag.withDescription("Routes per page, 1–1000 (default 100)"), Flag.optional),
    offset: Flag.Int("offset").pipe(Flag.withDescription("Routes to skip (default 0)"), Flag.optional),
    watch: Flag.Boolean("watch").pipe(
      Flag.withDescription("Print the page again after every sample (every second) until Ctrl-C"),
      Flag.withDefault(false)
    ),
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.uptime")(function* (flags) {
    const query = {
      period: flags.period,
      ...(Option.isSome(flags.keyword) ? { keyword: flags.keyword.value } : {}),
      ...(Option.isSome(flags.limit) ? { limit: flags.limit.value } : {}),
      ...(Option.isSome(flags.offset) ? { offset: flags.offset.value } : {})
    }
    // Watching, each page is one JSON line (a stream of documents) or a table after a blank line.
    const show = (page: RouteUptimePage, watching: boolean) =>
      flags.json
        ? Console.log(watching ? JSON.stringify(page) : JSON.stringify(page, null, 2))
        : Effect.forEach([...(watching ? [""] : []), ...formatUptimePage(page, flags.period)], (line) =>
            Console.log(line)
          )
    yield* withClient(flags, (c) =>
      flags.watch
        ? untilCtrlC(
            Stream.runForEach(c.metrics.watchUptime(query, followOptions(flags.reconnect)), (page) => show(page, true))
          )
        : Effect.flatMap(c.metrics.uptime({ query }), (page) => show(page, false))
    )
  })
).pipe(Command.withDescription("The routes' uptime, downtime, idle time and latency over a period (--watch: follow)"))
