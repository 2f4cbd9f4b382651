import type {
  ContainerAction,
  ContainerActionResult,
  ContainerIdAmbiguous,
  ContainerLogLine,
  ContainerNotFound,
  ContainerNotRunning,
  ContainerPaused,
  ContainerStats,
  ContainerSummary,
  DockerFailed,
  DockerHostUnreachable,
  DockerNotConfigured,
  InvalidArgument,
  ValidationIssue
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { ProviderState } from "../routes/RouteProviders.js"

/** What an engine call can fail with: the engine down, or an error it answered. */
export type EngineError = DockerHostUnreachable | DockerFailed

/** Finding a container failed: a malformed reference, no engine, an engine failing, none or several matches. */
export type ContainerLookupError =
  | InvalidArgument
  | DockerNotConfigured
  | EngineError
  | ContainerNotFound
  | ContainerIdAmbiguous

/**
 * Whether a problem of `Docker.routeState` is an engine that did not answer (rather than a container's label):
 * it is about no label, so its path is empty.
 */
export const isEngineIssue = (issue: ValidationIssue): boolean => issue.path.length === 0

/** A container event from an engine's event stream. */
export interface ContainerEvent {
  readonly host: string
  readonly id: string
  /** Its name when the event happened (`rename`: the new one). */
  readonly name: string
  readonly action: "start" | "stop" | "die" | "health_status" | "destroy" | "rename"
  /** `health_status`: the new status; `die`: the exit code. */
  readonly detail?: string
}

/** A container event that is recorded as a `docker/*` event (SPEC §6 types no others). */
export interface RecordedContainerEvent extends ContainerEvent {
  readonly action: "start" | "stop" | "die" | "health_status"
}

/**
 * Whether the event is recorded as a `docker/*` event. A removal or a new name is not one the API types; it only
 * makes the routes be read again (a removed container takes its routes with it, a renamed one names them anew).
 */
export const isRecorded = (event: ContainerEvent): event is RecordedContainerEvent =>
  event.action !== "destroy" && event.action !== "rename"

/** Which of a container's output to read (SPEC §6). */
export interface LogQuery {
  /** The last lines to give, 1–1000 (default 100). */
  readonly limit?: number | undefined
  readonly stdout?: boolean | undefined
  readonly stderr?: boolean | undefined
  /** Unix seconds or an RFC 3339 time (see `EngineTime`); the engine is sent Unix seconds. */
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly timestamps?: boolean | undefined
}

/**
 * Docker (and Podman's Docker API) engines (SPEC §6): containers of every configured host, addressed by full or
 * unique-prefix id, by name, or (with the route table in context) by the alias of a route their labels define;
 * the alias of any other route is an `InvalidArgument`. Normalized stats, logs as lines, and start/stop/restart. Streams are shared per
 * container: any number of watchers of one container's stats cost one engine stream, closed with the last.
 * Lookups run before a stream is promised, so a refusal is a plain error. The real layer is `DockerLive.layer`.
 */
export class Docker extends Context.Service<
  Docker,
  {
    /** Every container of every reachable engine, running or not. Fails only when no engine answers. */
    readonly containers: Effect.Effect<ReadonlyArray<ContainerSummary>, DockerNotConfigured | EngineError>
    /**
     * The container list, then again whenever it changed, checked every 5 s: one check for all watchers, which
     * stops with the last of them.
     */
    readonly watchContainers: Stream.Stream<ReadonlyArray<ContainerSummary>, DockerNotConfigured | EngineError>
    /**
     * The routes the labels of every container declare (SPEC §2), with their problems and the container each route
     * runs in (its state and HEALTHCHECK drive the route's health). A stopped container keeps the routes it had
     * while running; an engine that does not answer is one issue (see {@link isEngineIssue}), and its containers
     * keep the routes they had when it last answered (a provider never drops good routes for a bad source).
     */
    readonly routeState: Effect.Effect<ProviderState, DockerNotConfigured>
    /**
     * Container start/stop/die/health_status/destroy/rename events of every engine, as they happen; an engine's
     * event stream that breaks is opened again when the engine is back, from its last event (before any, from when
     * the stream was first not open, as an engine down when the server started): what happened meanwhile comes then,
     * and nothing twice. Never ends.
     */
    readonly events: Stream.Stream<ContainerEvent>
    /**
     * One stats sample (the engine takes about a second to measure CPU between two reads); `ContainerNotRunning`
     * for a container that is not running (paused is running, frozen), without asking the engine for stats.
     */
    readonly stats: (
      id: string
    ) => Effect.Effect<ContainerStats, ContainerLookupError | EngineError | ContainerNotRunning>
    /**
     * Finds the container (`ContainerNotRunning` when it is not running), then its stats at the engine's own cadence
     * (shared by every watcher of it), ending when the container stops.
     */
    readonly watchStats: (
      id: string
    ) => Effect.Effect<Stream.Stream<ContainerStats, EngineError>, ContainerLookupError | ContainerNotRunning>
    /** The last `limit` lines. */
    readonly logs: (
      id: string,
      query: LogQuery
    ) => Effect.Effect<ReadonlyArray<ContainerLogLine>, ContainerLookupError | EngineError>
    /** Finds the container, then its last `limit` lines and each new one (one engine follow per container and query). */
    readonly followLogs: (
      id: string,
      query: LogQuery
    ) => Effect.Effect<Stream.Stream<ContainerLogLine, EngineError>, ContainerLookupError | EngineError>
    /**
     * Start, stop (the engine's graceful stop: SIGTERM, then SIGKILL after 10 s) or restart; idempotent. A paused
     * container is not started (`ContainerPaused`: the engine refuses, and unpausing is the caller's decision).
     */
    readonly act: (
      id: string,
      action: ContainerAction
    ) => Effect.Effect<ContainerActionResult, ContainerLookupError | EngineError | ContainerPaused>
  }
>()("@gatehouse-edge/core/Docker") {}
