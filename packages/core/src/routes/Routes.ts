import { Context, type Effect, type Stream } from "effect"
import type { Route } from "../domain/Route.js"
import type { RouteNotFound } from "../domain/RouteErrors.js"
import type { ValidationIssue } from "../domain/ValidationIssue.js"

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
>()("@gatehouse/core/Routes") {}
