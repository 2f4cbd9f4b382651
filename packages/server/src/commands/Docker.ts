import type { ContainerAction, ContainerLogLine, ContainerStats, ContainerSummary } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { print } from "./AuthOutput.js"
import { longCallTimeoutMs } from "./CallTimeouts.js"
import { untilCtrlC } from "./Following.js"
import { httpFlags, withClient } from "./HttpConnection.js"
import { followOptions, reconnectFlag } from "./Reconnecting.js"

const container = Argument.String("container").pipe(
  Argument.withDescription("Container id, unique id prefix, name, or the alias of a route its labels define")
)

const formatContainer = (c: ContainerSummary) =>
  `${c.host.padEnd(10)}  ${c.id.slice(0, 12)}  ${c.name.padEnd(20)}  ${c.state.padEnd(8)}  ${c.status}  ${c.image}`

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)}MiB`

const formatStats = (s: ContainerStats) =>
  `${s.name}  cpu ${s.cpu_pct.toFixed(1)}%  mem ${mib(s.mem_used)}/${mib(s.mem_limit)} (${s.mem_pct.toFixed(1)}%)  ` +
  `net ${s.net_rx}/${s.net_tx} B  block ${s.block_read}/${s.block_write} B  pids ${s.pids}`

const formatLine = (l: ContainerLogLine) =>
  `${l.timestamp === undefined ? "" : `${l.timestamp} `}${l.stream === "stderr" ? "err " : ""}${l.line}`

const ps = Command.make(
  "ps",
  httpFlags,
  Effect.fn("gatehouse.docker.ps")(function* (flags) {
    const all = yield* withClient(flags, (c) => c.docker.containers())
    yield* print(flags.json, all, (list) => (list.length === 0 ? ["no containers"] : list.map(formatContainer)))
  })
).pipe(Command.withDescription("List the containers of every configured engine"))

const stats = Command.make(
  "stats",
  {
    ...httpFlags,
    container,
    watch: Flag.Boolean("watch").pipe(
      Flag.withDescription("Follow at the engine's cadence until Ctrl-C"),
      Flag.withDefault(false)
    ),
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.docker.stats")(function* (flags) {
    const show = (s: ContainerStats) => print(flags.json, s, formatStats)
    yield* withClient(flags, (c) =>
      flags.watch
        ? untilCtrlC(Stream.runForEach(c.docker.watchStats(flags.container, followOptions(flags.reconnect)), show))
        : Effect.flatMap(c.docker.stats({ params: { id: flags.container } }), show)
    )
  })
).pipe(Command.withDescription("A container's CPU, memory, network and block I/O (--watch: follow)"))

const logs = Command.make(
  "logs",
  {
    ...httpFlags,
    container,
    limit: Flag.Int("limit").pipe(Flag.withDescription("The last lines, 1–1000 (default 100)"), Flag.optional),
    follow: Flag.Boolean("follow").pipe(
      Flag.withAlias("f"),
      Flag.withDescription("Then follow until Ctrl-C"),
      Flag.withDefault(false)
    ),
    timestamps: Flag.Boolean("timestamps").pipe(
      Flag.withDescription("Show the engine's times"),
      Flag.withDefault(false)
    ),
    stream: Flag.Literals("stream", ["stdout", "stderr"]).pipe(
      Flag.withDescription("Only this one of the container's outputs (default: both)"),
      Flag.optional
    ),
    since: Flag.String("since").pipe(
      Flag.withDescription("Lines from this time on: Unix seconds or RFC 3339 (2026-11-26T04:19:22Z)"),
      Flag.optional
    ),
    until: Flag.String("until").pipe(Flag.withDescription("Lines before this time (same forms)"), Flag.optional),
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.docker.logs")(function* (flags) {
    const query = {
      ...(Option.isSome(flags.limit) ? { limit: flags.limit.value } : {}),
      ...(flags.timestamps ? { timestamps: true } : {}),
      ...(Option.isSome(flags.stream)
        ? { stdout: flags.stream.value === "stdout", stderr: flags.stream.value === "stderr" }
        : {}),
      ...(Option.isSome(flags.since) ? { since: flags.since.value } : {}),
      ...(Option.isSome(flags.until) ? { until: flags.until.value } : {})
    }
    const show = (line: ContainerLogLine) =>
      flags.json ? Console.log(JSON.stringify(line)) : Console.log(formatLine(line))
    yield* withClient(flags, (c) =>
      flags.follow
        ? untilCtrlC(
            Stream.runForEach(c.docker.followLogs(flags.container, query, followOptions(flags.reconnect)), show)
          )
        : Effect.flatMap(c.docker.logs({ params: { id: flags.container }, query }), (lines) =>
            Effect.forEach(lines, show, { discard: true })
          )
    )
  })
).pipe(Command.withDescription("A container's last lines of stdout and stderr (-f: then follow)"))

const act = (action: ContainerAction, description: string) =>
  Command.make(
    action,
    { ...httpFlags, container },
    Effect.fn(`gatehouse.docker.${action}`)(function* (flags) {
      // The server answers once the engine is done (a stop waits for the container): longer than a read.
      const result = yield* withClient(flags, (c) => c.docker.act({ params: { id: flags.container, action } }), {
        answerWithinMs: longCallTimeoutMs
      })
      yield* print(flags.json, result, (r) => `${r.message} (${r.state})`)
    })
  ).pipe(Command.withDescription(description))

/** `gatehouse docker ...`: containers of the configured engines over the HTTP API. */
export const dockerCommand = Command.make("docker").pipe(
  Command.withDescription("Docker and Podman: ps, stats, logs, start, stop, restart (over HTTP)"),
  Command.withSubcommands([
    ps,
    stats,
    logs,
    act("start", "Start a container (idempotent)"),
    act("stop", "Stop a container gracefully (idempotent)"),
    act("restart", "Restart a container")
  ])
)
