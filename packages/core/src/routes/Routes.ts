import { Context, Effect, Layer, type Stream, SubscriptionRef } from "effect"
import type { ValidationFailed } from "../domain/CommonErrors.js"
import type { Route } from "../domain/Route.js"
import { RouteNotFound } from "../domain/RouteErrors.js"
import type { ValidationIssue } from "../domain/ValidationIssue.js"
import type { Events } from "../events/Events.js"
import { makeRoutes, type RoutesOptions } from "./RoutesLive.js"

/** A route in the active table, with where it came from (`file:<name>`, later `docker:<host>`). */
export interface RouteRecord {
  readonly route: Route
  readonly provider: string
  readonly excluded: boolean
}

/** What a reload did: the table was replaced (with what changed) or kept because of errors. */
export type ReloadOutcome =
  | {
      readonly _tag: "Reloaded"
      readonly added: ReadonlyArray<string>
      readonly removed: ReadonlyArray<string>
      readonly changed: ReadonlyArray<string>
    }
  | { readonly _tag: "Rejected"; readonly issues: ReadonlyArray<ValidationIssue> }

/** The active route table. */
export class Routes extends Context.Service<
  Routes,
  {
    readonly list: Effect.Effect<ReadonlyArray<RouteRecord>>
    readonly get: (alias: string) => Effect.Effect<RouteRecord, RouteNotFound>
    /** The current table, then the table again after every successful reload. */
    readonly changes: Stream.Stream<ReadonlyArray<RouteRecord>>
    /** Re-reads the route files; on any error the current table stays active. */
    readonly reload: Effect.Effect<ReloadOutcome>
  }
>()("@gatehouse-edge/core/Routes") {
  /** Routes from the route files of `routesDir`; fails with every problem when they are not all valid. */
  static readonly layer = (options: RoutesOptions): Layer.Layer<Routes, ValidationFailed, Events> =>
    Layer.effect(
      Routes,
      Effect.map(makeRoutes(options), (service) => Routes.of(service))
    )

  /** A fixed route table (for tests and embedding); `reload` changes nothing. */
  static readonly layerStatic = (records: ReadonlyArray<RouteRecord>): Layer.Layer<Routes> =>
    Layer.effect(
      Routes,
      Effect.map(SubscriptionRef.make(records), (ref) =>
        Routes.of({
          list: SubscriptionRef.get(ref),
          get: (alias) => {
            const record = records.find((r) => r.route.alias === alias)
            return record === undefined ? Effect.fail(new RouteNotFound({ alias })) : Effect.succeed(record)
          },
          changes: SubscriptionRef.changes(ref),
          reload: Effect.succeed({ _tag: "Reloaded", added: [], removed: [], changed: [] })
        })
      )
    )
}

export type { RoutesOptions }
