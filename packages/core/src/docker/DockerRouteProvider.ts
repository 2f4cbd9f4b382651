import { DockerEvents } from "@gatehouse-edge/contract/domain"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { Events } from "../events/Events.js"
import { type ProviderState, RouteProviders } from "../routes/RouteProviders.js"
import { checkAcrossContainers } from "./ContainerRoutes.js"
import { Docker, isEngineIssue, isRecorded } from "./Docker.js"

// Engines send several events for one change (stop then die); one re-read after a short quiet period covers them.
const settleMs = 200
// A missed event (the engine's stream was down) is caught up with by a periodic re-read.
const resyncEvery = Duration.seconds(30)
// While an engine does not answer, its routes are its last ones and the problem stands: read again this often, so
// both are current within seconds of the engine's return (its event stream reconnects with a back-off of up to 30 s).
const retryEvery = Duration.seconds(2)

/**
 * Adds the routes of the Docker engines' containers to the route table (their `proxy.*` labels), as the provider
 * `docker`: read at start, again within a second of each container start/stop/die/health_status/destroy/rename
 * event of an engine, and every 30 s (every 2 s while an engine does not answer). Each of those events but destroy
 * and rename is also recorded as a `docker/*` event. Without engines, nothing.
 */
export const layer: Layer.Layer<never, never, Docker | RouteProviders | Events> = Layer.effectDiscard(
  Effect.gen(function* () {
    const docker = yield* Docker
    const providers = yield* RouteProviders
    const events = yield* Events
    const first = yield* Effect.result(docker.routeState)
    // No engine configured: no provider at all, so the route table and `/route/list` are unchanged.
    if (first._tag === "Failure") return
    // A container event the store cannot record (full, busy past its timeout) is logged and passed over: the
    // provider must go on reading the engines, or the Docker routes would stay as they were until a restart.
    const recorded = docker.events.pipe(
      Stream.tap((event) =>
        // A removal or a rename only re-reads the routes: the API types no event for it.
        !isRecorded(event)
          ? Effect.void
          : events
              .publish(
                DockerEvents[event.action]({
                  host: event.host,
                  id: event.id,
                  name: event.name,
                  ...(event.detail === undefined ? {} : { detail: event.detail })
                })
              )
              .pipe(
                Effect.catchCause((cause) =>
                  Cause.hasInterruptsOnly(cause)
                    ? Effect.failCause(cause)
                    : Effect.logWarning(
                        `the docker/${event.action} event of ${event.name} could not be recorded`,
                        cause
                      )
                )
              )
      )
    )
    let engineDown = first.success.issues.some(isEngineIssue)
    const triggers = Stream.mergeAll(
      [
        Stream.as(Stream.debounce(recorded, Duration.millis(settleMs)), "event"),
        Stream.as(Stream.fromSchedule(Schedule.spaced(resyncEvery)), "resync"),
        Stream.fromSchedule(Schedule.spaced(retryEvery)).pipe(
          Stream.filter(() => engineDown),
          Stream.as("retry")
        )
      ],
      { concurrency: "unbounded" }
    )
    const states: Stream.Stream<ProviderState> = Stream.concat(
      Stream.succeed(first.success),
      triggers.pipe(
        Stream.mapEffect(() =>
          // `routeState` fails only when no engine is configured, which was ruled out above.
          Effect.orDie(docker.routeState).pipe(
            Effect.tap((state) =>
              Effect.sync(() => {
                engineDown = state.issues.some(isEngineIssue)
              })
            )
          )
        )
      )
    ).pipe(
      // Two containers claiming one alias: the oldest keeps it (not whichever the engine lists first), and the
      // problem names both, as a label's problem names its container.
      Stream.map(checkAcrossContainers),
      // Most re-reads find what the last one did (every 30 s; each event of a container without routes). Only a
      // change goes on to the route table, so a standing problem (a bad label, an engine that is down) is
      // announced once, not with every re-read.
      Stream.changesWith((a, b) => JSON.stringify(a) === JSON.stringify(b))
    )
    yield* providers.add({ name: "docker", states })
  })
)
