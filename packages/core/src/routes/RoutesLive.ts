import { Effect, Equal, Semaphore, Stream, SubscriptionRef } from "effect"
import { ValidationFailed } from "../domain/CommonErrors.js"
import type { Route } from "../domain/Route.js"
import { RouteNotFound } from "../domain/RouteErrors.js"
import { Events } from "../events/Events.js"
import { loadRouteFiles } from "./RouteFiles.js"
import type { ReloadOutcome, RouteRecord } from "./Routes.js"

/** Where route files live. */
export interface RoutesOptions {
  readonly routesDir: string
}

const sameRoute = (a: Route, b: Route) => JSON.stringify(a) === JSON.stringify(b)

const diff = (before: ReadonlyArray<RouteRecord>, after: ReadonlyArray<RouteRecord>) => {
  const old = new Map(before.map((r) => [r.route.alias, r]))
  const next = new Map(after.map((r) => [r.route.alias, r]))
  const added = [...next.keys()].filter((alias) => !old.has(alias)).sort()
  const removed = [...old.keys()].filter((alias) => !next.has(alias)).sort()
  const changed = [...next.entries()]
    .filter(([alias, record]) => {
      const previous = old.get(alias)
      return (
        previous !== undefined && (!sameRoute(previous.route, record.route) || previous.provider !== record.provider)
      )
    })
    .map(([alias]) => alias)
    .sort()
  return { added, removed, changed }
}

/**
 * The active route table, loaded from the route files. A reload validates every file first and replaces the table
 * only when all of them are valid: on any error the current table stays active and a `config/error` event lists
 * the problems. At start the same rule applies: the layer fails with every problem, so the server never runs a
 * configuration it did not fully validate.
 */
export const makeRoutes = Effect.fnUntraced(function* (options: RoutesOptions) {
  const events = yield* Events
  const load = Effect.map(loadRouteFiles(options.routesDir), ({ routes, issues }) => ({
    records: routes.map((r): RouteRecord => ({ route: r.route, provider: r.provider, excluded: false })),
    issues
  }))

  const initial = yield* load
  if (initial.issues.length > 0) return yield* new ValidationFailed({ issues: initial.issues })
  const table = yield* SubscriptionRef.make<ReadonlyArray<RouteRecord>>(initial.records)
  const reloading = yield* Semaphore.make(1)

  const reload: Effect.Effect<ReloadOutcome> = reloading.withPermits(1)(
    Effect.gen(function* () {
      const next = yield* load
      if (next.issues.length > 0) {
        yield* events.publish({
          level: "error",
          category: "config",
          action: "error",
          data: { source: "routes", issues: next.issues }
        })
        return { _tag: "Rejected", issues: next.issues } as const
      }
      const current = yield* SubscriptionRef.get(table)
      const changes = diff(current, next.records)
      if (changes.added.length + changes.removed.length + changes.changed.length > 0) {
        yield* SubscriptionRef.set(table, next.records)
        yield* events.publish({
          level: "info",
          category: "config",
          action: "reload",
          data: { source: "routes", ...changes }
        })
      }
      return { _tag: "Reloaded", ...changes } as const
    })
  )

  return {
    list: SubscriptionRef.get(table),
    get: (alias: string) =>
      Effect.flatMap(SubscriptionRef.get(table), (records) => {
        const record = records.find((r) => r.route.alias === alias)
        return record === undefined ? Effect.fail(new RouteNotFound({ alias })) : Effect.succeed(record)
      }),
    changes: SubscriptionRef.changes(table).pipe(Stream.changesWith((a, b) => a === b || Equal.equals(a, b))),
    reload
  }
})
