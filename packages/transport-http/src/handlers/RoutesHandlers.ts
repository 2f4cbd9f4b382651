import { Health, type RouteRecord, Routes, validateRoutes, validateRoutesYaml } from "@gatehouse-edge/core"
import {
  type HealthInfo,
  type HealthMap,
  RouteEntry,
  RouteValidationDone,
  RouteValidationFrame,
  UpgradeRequired
} from "@gatehouse-edge/core/domain"
import { Effect, Schema, Stream } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatehouseApi } from "../api/GatehouseApi.js"
import { checkSameOrigin, isWebSocketUpgrade, serveWebSocket, streamToWebSocket } from "../server/WebSocketSession.js"
import { jsonFrame } from "./Frames.js"

const unknownHealth: HealthInfo = { status: "unknown", latency_ms: 0, uptime_s: 0, last_check: null }

/** A route table record as listed by the API: the route, its provider, excluded flag and current health. */
export const toRouteEntry = (record: RouteRecord, health: HealthMap): RouteEntry => ({
  ...record.route,
  provider: record.provider,
  excluded: record.excluded,
  health: health[record.route.alias] ?? unknownHealth
})

const frameOf = jsonFrame(RouteValidationFrame)
const doneOf = jsonFrame(RouteValidationDone)
const entriesFrame = jsonFrame(Schema.Array(RouteEntry))

/** The frames answering one YAML document sent on the validation WebSocket. */
export const validationFrames = (document: string): ReadonlyArray<string> => {
  const report = validateRoutesYaml(document)
  if (report._tag === "InvalidYaml") return [doneOf({ done: true, valid: 0, invalid: 0, errors: report.issues })]
  const frames = report.routes.map((result) =>
    frameOf(
      result.issues.length === 0 && result.route !== undefined
        ? { alias: result.alias, valid: true, route: result.route }
        : { alias: result.alias, valid: false, errors: result.issues }
    )
  )
  const valid = report.routes.filter((r) => r.issues.length === 0).length
  const documentIssues = report.issues
  return [
    ...frames,
    doneOf({
      done: true,
      valid,
      invalid: report.routes.length - valid,
      ...(documentIssues.length > 0 ? { errors: documentIssues } : {})
    })
  ]
}

/** Handlers of the `routes` group. */
export const RoutesHandlers = HttpApiBuilder.group(GatehouseApi, "routes", (handlers) =>
  Effect.gen(function* () {
    const routes = yield* Routes
    const health = yield* Health
    const entries = Effect.zipWith(routes.list, health.snapshot, (records, map) =>
      records.map((record) => toRouteEntry(record, map))
    )
    return handlers
      .handle("validate", ({ payload }) =>
        Effect.map(validateRoutes(payload), (validated) => ({ valid: true as const, routes: validated }))
      )
      .handle("validateStream", ({ request }) =>
        isWebSocketUpgrade(request)
          ? Effect.andThen(
              checkSameOrigin(request),
              serveWebSocket((incoming) =>
                Stream.flatMap(incoming, (doc) => Stream.fromIterable(validationFrames(doc)))
              )
            )
          : Effect.fail(new UpgradeRequired({ path: "/api/v1/route/validate" }))
      )
      .handle("list", ({ request }) =>
        isWebSocketUpgrade(request)
          ? Effect.andThen(
              checkSameOrigin(request),
              // A frame when the table changes or a route's health status does (not on every latency tick).
              streamToWebSocket(
                Stream.zipLatestWith(routes.changes, health.changes, (records, map) =>
                  records.map((record) => toRouteEntry(record, map))
                ).pipe(Stream.map(entriesFrame))
              )
            )
          : entries
      )
      .handle("get", ({ params }) =>
        Effect.zipWith(routes.get(params.alias), health.snapshot, (record, map) => toRouteEntry(record, map))
      )
  })
)
