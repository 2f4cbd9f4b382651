import type {
  ContainerAction,
  ContainerLogLine,
  ContainerSummary,
  ContainerTarget,
  ValidationIssue
} from "@gatehouse-edge/contract/domain"
import {
  ContainerIdAmbiguous,
  ContainerNotFound,
  ContainerNotRunning,
  ContainerPaused,
  DockerFailed,
  DockerNotConfigured,
  InvalidArgument,
  RouteNotFound,
  toEngineTime
} from "@gatehouse-edge/contract/domain"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as RcMap from "effect/RcMap"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { DockerConfig } from "../config/ConfigSections.js"
import type { SecretUnreadable } from "../config/ReadSecret.js"
import type { ProvidedRoute, ProviderState } from "../routes/RouteProviders.js"
import { type RouteRecord, Routes } from "../routes/Routes.js"
import { KeyWith } from "../util/KeyWith.js"
import { shareWithReplay } from "../util/ShareWithReplay.js"
import { defaultLimit, followFromWindow, type LogWindow, readLogWindow } from "./ContainerLogWindow.js"
import { containerRefProblem, type ListedContainer, matchContainers } from "./ContainerRef.js"
import {
  type ContainerRouteReport,
  containerRoutes,
  containerTargetOf,
  type ListedForRoutes
} from "./ContainerRoutes.js"
import { containerStatsOf, type EngineStats, hasPreviousSample, isLiveSample } from "./ContainerStatsOf.js"
import { Docker, type LogQuery } from "./Docker.js"
import { type DockerEngine, engineListTimeoutMs, engineStillThere, makeDockerEngine } from "./DockerEngine.js"
import { engineEvents } from "./EngineEvents.js"
import { makeJsonLines } from "./EngineJsonLines.js"
import { fromEngineStream } from "./EngineStreams.js"

/**
 * The most of the engine's answer a one-off log read holds (`Docker.logs`, and the look back of a follow), by
 * default. A plain GET is under none of the stream limits, and the engine cuts messages at 16 KiB: the
 * widest window (10,000 messages) could be 160 MiB, held once per request. 4 MiB holds the usual answer many times
 * over (1,000 lines of 4 KiB); it sits between the 1 MiB a node command's output may be and the 32 MiB of a whole
 * Proxmox answer, as a log read is not one per server but one per caller.
 */
export const maxLogReadBytes = 4 * 1024 * 1024

/** Limits of the real service other than its config (tests make them small). */
export interface DockerLiveOptions {
  /** See {@link maxLogReadBytes}. */
  readonly maxLogReadBytes?: number | undefined
}

interface Found extends ListedContainer {
  readonly engine: DockerEngine
  /** The engine's state of it when it was found (`running`, `paused`, `exited`, ...). */
  readonly state: string
}

// Whether a followed engine is still there (after its stream broke).
const ping = engineStillThere

/** Whether a container in this state has stats to give: a paused one is there, frozen; the others have no process. */
const hasStats = (state: string) => state === "running" || state === "paused"

/** Why a query's `since` or `until` is no time (see `EngineTime`), as the 400 the API answers; else undefined. */
const logTimeProblem = (query: LogQuery): InvalidArgument | undefined => {
  for (const field of ["since", "until"] as const) {
    const value = query[field]
    if (value !== undefined && toEngineTime(value) === undefined) {
      return new InvalidArgument({
        message: `invalid ${field}: expected Unix seconds or an RFC 3339 time, got ${JSON.stringify(value)}`,
        issues: [{ path: [field], message: "not a time from 1970 on" }]
      })
    }
  }
  return undefined
}

/** A log follow shared by its watchers: the container, the query, and how the engine's output is framed. */
interface LogFollow {
  readonly found: Found
  readonly query: LogQuery
  readonly tty: boolean
  /** Where the follow starts: the window a read found the last `limit` lines in. */
  readonly window: LogWindow
}

/** Builds the service over the configured engines (none: every call answers `DockerNotConfigured`). */
export const make = Effect.fn("DockerLive.make")(function* (config: DockerConfig, options: DockerLiveOptions = {}) {
  const engines = yield* Effect.forEach(config.hosts, makeDockerEngine)
  const configured = engines.length === 0 ? Effect.fail(new DockerNotConfigured()) : Effect.void

  const listAll = Effect.forEach(
    engines,
    (engine) =>
      Effect.result(
        Effect.map(
          engine.call((d, signal) => d.listContainers({ all: true, abortSignal: signal }), engineListTimeoutMs),
          (list) => list.map((c) => ({ engine, raw: c }))
        )
      ),
    { concurrency: "unbounded" }
  )

  const containers = Effect.gen(function* () {
    yield* configured
    const results = yield* listAll
    const reachable = results.flatMap((r) => (r._tag === "Success" ? [r.success] : []))
    const down = results.flatMap((r) => (r._tag === "Failure" ? [r.failure] : []))
    // One engine down must not hide the others; only when none answers is the list an error.
    const firstDown = down[0]
    if (reachable.length === 0 && firstDown !== undefined) return yield* Effect.fail(firstDown)
    return reachable.flat().map(
      ({ engine, raw }): ContainerSummary => ({
        host: engine.host,
        id: raw.Id,
        name: (raw.Names?.[0] ?? "").replace(/^\//, ""),
        image: raw.Image,
        state: raw.State,
        status: raw.Status,
        labels: raw.Labels ?? {},
        routes: containerRoutes(engine.host, raw).aliases
      })
    )
  }).pipe(Effect.withSpan("Docker.containers"))

  // With the route table (the server has one), a route alias names the container its labels came from, and the
  // alias of a route that is not a container's is a mistake the caller should hear about (SPEC §6: 400).
  const routes = yield* Effect.serviceOption(Routes)
  const aliasTarget = (ref: string): Effect.Effect<ContainerTarget | undefined, InvalidArgument> =>
    Option.isNone(routes)
      ? Effect.succeed(undefined)
      : routes.value.get(ref).pipe(
          Effect.map((record): RouteRecord | undefined => record),
          Effect.catchIf(
            (error): error is RouteNotFound => error instanceof RouteNotFound,
            () => Effect.succeed(undefined)
          ),
          Effect.flatMap((record) =>
            record === undefined || record.container !== undefined
              ? Effect.succeed(record?.container)
              : Effect.fail(
                  new InvalidArgument({
                    message: `"${ref}" is the alias of a route from ${record.provider}, not of a container`,
                    issues: [{ path: ["id"], message: "the route's target is not a container" }]
                  })
                )
          )
        )

  const find = Effect.fn("Docker.find")(function* (ref: string) {
    const problem = containerRefProblem(ref)
    if (problem !== undefined) return yield* problem
    yield* configured
    const results = yield* listAll
    const listed: Array<Found> = results.flatMap((r) =>
      r._tag === "Success"
        ? r.success.map(({ engine, raw }) => ({
            engine,
            host: engine.host,
            id: raw.Id,
            name: (raw.Names?.[0] ?? "").replace(/^\//, ""),
            state: raw.State
          }))
        : []
    )
    // An exact id or name first, then a route alias, then an id prefix.
    const exact = listed.filter((c) => c.id === ref || c.name === ref)
    const aliased = exact.length > 0 ? undefined : yield* aliasTarget(ref)
    const matches =
      exact.length > 0
        ? exact
        : aliased !== undefined
          ? listed.filter((c) => c.host === aliased.host && c.id === aliased.id)
          : (matchContainers(ref, listed) as ReadonlyArray<Found>)
    if (matches.length === 1) return matches[0]!
    if (matches.length > 1) {
      return yield* new ContainerIdAmbiguous({
        id: ref,
        matches: matches.map((m) => ({ host: m.host, id: m.id, name: m.name }))
      })
    }
    // Not found where we could look; an engine that did not answer might have it, and that is the answer.
    for (const result of results) if (result._tag === "Failure") return yield* Effect.fail(result.failure)
    return yield* new ContainerNotFound({ id: ref })
  })

  const stateOf = (found: Found) =>
    Effect.map(
      found.engine.call((d) => d.getContainer(found.id).inspect()),
      (info) => info.State?.Status ?? "unknown"
    )
  const notRunning = (found: Found, state: string) =>
    new ContainerNotRunning({ host: found.host, name: found.name, state })

  const statsOnce = (found: Found) =>
    Effect.gen(function* () {
      // Asked anyway, Docker answers with a sample of zeros stamped 0001-01-01 (and the read waits a second more
      // for a sample to measure CPU against).
      if (!hasStats(found.state)) return yield* notRunning(found, found.state)
      const sample = found.engine
        .call((d) => d.getContainer(found.id).stats({ stream: false }) as unknown as Promise<EngineStats>)
        .pipe(
          // It stopped since it was found.
          Effect.flatMap((raw) =>
            isLiveSample(raw) ? Effect.succeed(raw) : Effect.flatMap(stateOf(found), (now) => notRunning(found, now))
          )
        )
      const first = yield* sample
      if (hasPreviousSample(first)) return containerStatsOf(found.host, found.id, first)
      // Docker measures a one-shot sample against one it takes a second earlier; Podman sends it alone, which
      // would always read 0% CPU. The second earlier is taken here instead.
      yield* Effect.sleep(Duration.seconds(1))
      const second = yield* sample
      return containerStatsOf(found.host, found.id, {
        ...second,
        ...(first.read === undefined ? {} : { preread: first.read }),
        ...(first.cpu_stats === undefined ? {} : { precpu_stats: first.cpu_stats })
      })
    })

  // One engine stats stream per container, shared by its watchers; a late one gets the latest sample first.
  const statsStreams = yield* RcMap.make({
    lookup: ({ value: found }: KeyWith<Found>) =>
      Stream.share(
        fromEngineStream({
          host: found.host,
          open: found.engine.call((d) => d.getContainer(found.id).stats({ stream: true })),
          decode: makeJsonLines<EngineStats>(found.host),
          stillThere: ping(found.engine)
        }).pipe(
          // Docker goes on sending samples of zeros once the container stopped: its stats end there.
          Stream.takeWhile(isLiveSample),
          Stream.map((raw) => containerStatsOf(found.host, found.id, raw))
        ),
        { capacity: 16, strategy: "sliding", replay: 1 }
      ),
    idleTimeToLive: Duration.zero
  })

  const isTty = (found: Found) =>
    Effect.map(
      found.engine.call((d) => d.getContainer(found.id).inspect()),
      (info) => info.Config?.Tty === true
    )

  const readBytes = options.maxLogReadBytes ?? maxLogReadBytes

  const lastLines = (found: Found, query: LogQuery, tty: boolean) =>
    readLogWindow({ host: found.host, id: found.id, stream: found.engine.stream }, query, tty, readBytes)

  const readLogs = Effect.fn("Docker.logs")(function* (ref: string, query: LogQuery) {
    const badTime = logTimeProblem(query)
    if (badTime !== undefined) return yield* badTime
    const found = yield* find(ref)
    return (yield* lastLines(found, query, yield* isTty(found))).lines
  })

  // One engine follow per container and query, shared; a late watcher first gets the last `limit` lines.
  const follows = yield* RcMap.make({
    lookup: ({ value: { found, query, tty, window } }: KeyWith<LogFollow>) =>
      Effect.gen(function* () {
        const limit = query.limit ?? defaultLimit
        const follow = followFromWindow(found.id, query, tty, window)
        const followed = fromEngineStream<ContainerLogLine>({
          host: found.host,
          // Not through dockerode: a follow of a chatty container is read as the engine's raw stream (see
          // `openEngineStream`); the query is the one dockerode would send.
          open: found.engine.stream(follow.path),
          decode: follow.decoder.push,
          flush: follow.decoder.end,
          stillThere: ping(found.engine)
        })
        // From the window's last `limit` lines on, of the outputs asked for (see `readLogWindow`).
        const lines = follow.keep(followed)
        // Lines travel in the engine's chunks (a burst is a few large batches of work, not one per line); a
        // follower 64 chunks behind holds the engine's stream until the WebSocket limits drop it.
        return yield* shareWithReplay(lines, { replay: limit, capacity: 64 })
      }),
    idleTimeToLive: Duration.zero
  })

  const act = Effect.fn("Docker.act")(function* (ref: string, action: ContainerAction) {
    const found = yield* find(ref)
    const container = (d: Parameters<Parameters<DockerEngine["call"]>[0]>[0]) => d.getContainer(found.id)
    const state = stateOf(found)
    const before = yield* state
    if (action === "start" && before === "running") return { message: "container already running", state: before }
    // The engine refuses to start it (409), and it is not running either: unpausing is the caller's call to make.
    if (action === "start" && before === "paused")
      return yield* new ContainerPaused({ host: found.host, name: found.name })
    if (action === "stop" && before !== "running" && before !== "paused" && before !== "restarting") {
      return { message: "container already stopped", state: before }
    }
    yield* found.engine
      .call((d) =>
        action === "start"
          ? container(d).start()
          : action === "stop"
            ? container(d).stop({ t: 10 })
            : container(d).restart({ t: 10 })
      )
      // 304 Not Modified: someone else got there first, which is the state asked for.
      .pipe(
        Effect.catchIf(
          (error) => error instanceof DockerFailed && error.status === 304,
          () => Effect.void
        )
      )
    const after = yield* state
    const message =
      action === "start" ? "container started" : action === "stop" ? "container stopped" : "container restarted"
    return { message, state: after }
  })

  // The routes each container declared when last seen running, by engine and id. A stopped container's published
  // ports and address are gone from the list, so its routes stay the ones it had, now following its state.
  const lastRunning = new Map<string, Map<string, ContainerRouteReport>>(engines.map((e) => [e.host, new Map()]))

  const routesOf = (engine: DockerEngine, raw: ListedForRoutes): ContainerRouteReport => {
    const known = lastRunning.get(engine.host)!
    if (raw.State === "running") {
      const report = containerRoutes(engine.host, raw)
      known.set(raw.Id, report)
      return report
    }
    const report = known.get(raw.Id) ?? containerRoutes(engine.host, raw)
    const container = containerTargetOf(engine.host, raw)
    // Its label problems are reported while it runs; stopped, it keeps the routes that hold, reported down.
    return { ...report, routes: report.routes.map((route) => ({ ...route, container })), issues: [] }
  }

  // Each engine's routes as last listed. An engine that cannot be listed keeps offering these (RouteProviders:
  // a provider never drops good routes for a bad source): its containers may well still be serving.
  const lastListed = new Map<string, ReadonlyArray<ProvidedRoute>>(engines.map((e) => [e.host, []]))

  const routeState = Effect.gen(function* () {
    yield* configured
    const results = yield* listAll
    const routes: Array<ProvidedRoute> = []
    const issues: Array<ValidationIssue> = []
    results.forEach((result, index) => {
      const host = engines[index]!.host
      if (result._tag === "Failure") {
        routes.push(...lastListed.get(host)!)
        issues.push({ path: [], message: result.failure.message, provider: `docker:${host}` })
        return
      }
      // Removed containers are forgotten.
      const present = new Set(result.success.map(({ raw }) => raw.Id))
      for (const id of lastRunning.get(host)!.keys()) if (!present.has(id)) lastRunning.get(host)!.delete(id)
      const listed: Array<ProvidedRoute> = []
      for (const { engine, raw } of result.success) {
        const report = routesOf(engine, raw)
        listed.push(...report.routes)
        issues.push(...report.issues)
      }
      lastListed.set(host, listed)
      routes.push(...listed)
    })
    return { routes, issues } satisfies ProviderState
  }).pipe(Effect.withSpan("Docker.routeState"))

  const events = Stream.mergeAll(engines.map(engineEvents), { concurrency: "unbounded" })

  // Compared as JSON: the engine's list order and fields are stable, so equal text is an unchanged list.
  const watchContainers = yield* Stream.fromEffectSchedule(containers, Schedule.fixed(Duration.seconds(5))).pipe(
    Stream.changesWith((a, b) => JSON.stringify(a) === JSON.stringify(b)),
    Stream.share({ capacity: 1, strategy: "sliding", replay: 1 })
  )

  return Docker.of({
    containers,
    watchContainers,
    routeState,
    events,
    stats: Effect.fn("Docker.stats")(function* (ref: string) {
      return yield* statsOnce(yield* find(ref))
    }),
    watchStats: Effect.fn("Docker.watchStats")(function* (ref: string) {
      const found = yield* find(ref)
      if (!hasStats(found.state)) return yield* notRunning(found, found.state)
      return Stream.unwrap(RcMap.get(statsStreams, new KeyWith(JSON.stringify([found.host, found.id]), found)))
    }),
    logs: readLogs,
    followLogs: Effect.fn("Docker.followLogs")(function* (ref: string, query: LogQuery) {
      const badTime = logTimeProblem(query)
      if (badTime !== undefined) return yield* badTime
      const found = yield* find(ref)
      const tty = yield* isTty(found)
      const key = JSON.stringify([
        found.host,
        found.id,
        query.limit ?? defaultLimit,
        query.stdout,
        query.stderr,
        query.since,
        query.until,
        query.timestamps
      ])
      // Read first, as the follow's start: where the last `limit` lines are, and whether a piece of a line is there.
      const window = yield* lastLines(found, query, tty)
      return Stream.unwrap(RcMap.get(follows, new KeyWith(key, { found, query, tty, window })))
    }),
    act
  })
}) as (
  config: DockerConfig,
  options?: DockerLiveOptions
) => Effect.Effect<Docker["Service"], SecretUnreadable, Scope.Scope>

/**
 * The real Docker service over dockerode, one client per configured engine. Built where `Routes` is in context
 * (as the server composes it), containers are also found by the alias of a route their labels define.
 */
export const layer = (config: DockerConfig) => Layer.effect(Docker)(make(config))
