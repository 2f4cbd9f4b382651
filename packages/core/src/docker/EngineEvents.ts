import { DockerFailed } from "@gatehouse-edge/contract/domain"
import type Dockerode from "dockerode"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { epochNanos } from "./ContainerStatsOf.js"
import type { ContainerEvent, EngineError } from "./Docker.js"
import { type DockerEngine, engineListTimeoutMs, engineStillThere } from "./DockerEngine.js"
import { makeLenientJsonLines, SkippedLine } from "./EngineJsonLines.js"
import { fromEngineStream } from "./EngineStreams.js"
import { makeEventResume } from "./EventResume.js"

/** An engine event (`GET /events`) as far as it is read. */
interface EngineEvent {
  readonly Type?: string
  readonly Action?: string
  readonly time?: number
  readonly timeNano?: number
  readonly Actor?: { readonly ID?: string; readonly Attributes?: Readonly<Record<string, string>> }
}

// Every action that changes a container's routes: its start, stop and death, its HEALTHCHECK's verdict, its removal
// (its routes go with it) and a new name (the name its routes give).
const watchedActions: ReadonlyArray<ContainerEvent["action"]> = [
  "start",
  "stop",
  "die",
  "health_status",
  "destroy",
  "rename"
]

/** A container event of interest, or `undefined` (`health_status: healthy` → action `health_status`, detail `healthy`). */
const containerEventOf = (host: string, event: EngineEvent): ContainerEvent | undefined => {
  if (event.Type !== "container" || event.Actor?.ID === undefined) return undefined
  const [action = "", status] = (event.Action ?? "").split(":").map((part) => part.trim())
  const watched = watchedActions.find((a) => a === action)
  if (watched === undefined) return undefined
  const attributes = event.Actor.Attributes ?? {}
  const detail = watched === "die" ? attributes.exitCode : status
  return {
    host,
    id: event.Actor.ID,
    name: attributes.name ?? event.Actor.ID.slice(0, 12),
    action: watched,
    ...(detail === undefined ? {} : { detail })
  }
}

/**
 * How far the engine's clock is ahead of this machine's (milliseconds; negative when behind), from its `SystemTime`;
 * 0 for an engine that does not say (then this machine's clock is the best guess).
 */
const engineClockOffset = (engine: DockerEngine): Effect.Effect<number, EngineError> =>
  Effect.gen(function* () {
    const info = yield* engine.call(
      (d) => d.info() as Promise<{ readonly SystemTime?: string | undefined }>,
      engineListTimeoutMs
    )
    const now = yield* Clock.currentTimeMillis
    const engineNanos = epochNanos(info.SystemTime)
    return engineNanos === undefined ? 0 : Number(engineNanos / 1_000_000n) - now
  })

/**
 * One engine's container events (see `Docker.events`), opened again when the stream breaks, once the engine
 * answers, from where it broke (`makeEventResume`). Never fails and never ends.
 */
export const engineEvents = (engine: DockerEngine): Stream.Stream<ContainerEvent> => {
  let decode = makeLenientJsonLines<EngineEvent>()
  const resume = makeEventResume()
  const notOpenFrom = (at: number) => Effect.sync(() => resume.notOpenFrom(at))
  // Since the last event seen; before any, since the stream was first not open, on the engine's clock: what the
  // engine did while the server waited for it (it was down when the server started) is recorded too.
  const since = Effect.gen(function* () {
    const last = resume.since()
    if (last !== undefined) return last
    const missed = resume.missedSince()
    if (missed === undefined) return undefined
    return Math.floor((missed + (yield* engineClockOffset(engine))) / 1000)
  })
  const open = Effect.flatMap(Clock.currentTimeMillis, (attemptedAt) =>
    Effect.gen(function* () {
      // A fresh decoder per open: a line the broken stream cut off must not run into the first line of the next.
      decode = makeLenientJsonLines<EngineEvent>()
      const from = yield* since
      // Interruptible, though an open is not (see `fromEngineStream`): the request is aborted with it, so a server
      // that stops while a stuck engine has not answered does not wait out the call's timeout.
      return yield* Effect.interruptible(
        engine.call((d, signal) => {
          // dockerode takes the signal here as in its other calls; its types leave it out.
          const options: Dockerode.GetEventsOptions & { readonly abortSignal: AbortSignal } = {
            ...(from === undefined ? {} : { since: from }),
            filters: JSON.stringify({ type: ["container"], event: watchedActions }),
            abortSignal: signal
          }
          return d.getEvents(options)
        })
      )
      // Not open from the attempt on: a stuck engine fails the open only after the call's timeout.
    }).pipe(Effect.tapError(() => notOpenFrom(attemptedAt)))
  )
  const opened = fromEngineStream({
    host: engine.host,
    open,
    decode: (chunk) => decode(chunk),
    stillThere: engineStillThere(engine)
  })
  // A down engine is waited for (its probe decides when it is back) rather than asked again and again. Outside the
  // open, which runs uninterruptibly: a server stopping while the engine is down must not wait for it.
  return Stream.unwrap(Effect.as(engine.whenUp, opened)).pipe(
    // Skipped, not failed (see `makeLenientJsonLines`); the operator learns of it here, with what it began with.
    Stream.tap((item) =>
      item instanceof SkippedLine
        ? Effect.logWarning(
            `Docker host "${engine.host}": skipped an event line that is not a JSON object ` +
              `(${item.length} characters): ${JSON.stringify(item.head)}`
          )
        : Effect.void
    ),
    Stream.filter((event): event is EngineEvent => !(event instanceof SkippedLine)),
    Stream.filter((event) =>
      resume.isNew({
        time: event.time,
        timeNano: event.timeNano,
        id: event.Actor?.ID ?? "",
        action: event.Action ?? ""
      })
    ),
    Stream.map((event) => containerEventOf(engine.host, event)),
    Stream.filter((event): event is ContainerEvent => event !== undefined),
    // The engine went away (or its stream ended): open it again once it answers, backing off meanwhile.
    Stream.concat(Stream.fail(new DockerFailed({ host: engine.host, status: 0, detail: "event stream ended" }))),
    Stream.tapError(() => Effect.flatMap(Clock.currentTimeMillis, notOpenFrom)),
    // 0.5 s doubling, but never more than 30 s apart.
    Stream.retry(Schedule.min([Schedule.exponential(Duration.millis(500)), Schedule.spaced(Duration.seconds(30))])),
    Stream.catch(() => Stream.empty)
  )
}
