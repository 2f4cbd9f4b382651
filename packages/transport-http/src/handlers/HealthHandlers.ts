import { Health } from "@gatehouse/core"
import { HealthMap } from "@gatehouse/core/domain"
import { Effect, Stream } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatehouseApi } from "../api/GatehouseApi.js"
import { checkSameOrigin, isWebSocketUpgrade, streamToWebSocket } from "../server/WebSocketSession.js"
import { jsonFrame } from "./Frames.js"

const statusSignature = (map: HealthMap) =>
  Object.keys(map)
    .sort()
    .map((alias) => `${alias}=${map[alias]!.status}`)
    .join(",")

/**
 * The health map, then at most one frame per second and only when a status (or the set of routes) changed.
 * Every client samples the one shared map, so N watchers cost nothing upstream.
 */
export const healthFrames = (health: Health["Service"]) =>
  Stream.tick("1 second").pipe(
    Stream.mapEffect(() => health.snapshot),
    Stream.changesWith((a, b) => statusSignature(a) === statusSignature(b)),
    Stream.map(jsonFrame(HealthMap))
  )

/** Handlers of the `health` group. */
export const HealthHandlers = HttpApiBuilder.group(GatehouseApi, "health", (handlers) =>
  Effect.gen(function* () {
    const health = yield* Health
    return handlers.handle("get", ({ request }) =>
      isWebSocketUpgrade(request)
        ? Effect.andThen(checkSameOrigin(request), streamToWebSocket(healthFrames(health)))
        : health.snapshot
    )
  })
)
