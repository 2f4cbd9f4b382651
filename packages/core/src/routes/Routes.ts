import type { ContainerTarget, Route, ValidationIssue } from "@gatehouse-edge/contract/domain"
import { RouteNotFound } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"

/** A route in the active table, with where it came from (`file:<name>`, `docker:<host>`, ...). */
export interface RouteRecord {
  readonly route: Route
  readonly provider: string
  readonly excluded: boolean
  /** The container the route's target runs in, when a container's labels define the route. */
  readonly container?: ContainerTarget | undefined
}

/**
 * What a reload did: which aliases were added, removed or changed in the active table, and every problem found.
 * Sources with problems keep their last good routes, so a non-empty `issues` never means the table was emptied.
 */
export interface ReloadOutcome {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly changed: ReadonlyArray<string>
  readonly issues: ReadonlyArray<ValidationIssue>
  /** Why sources could not be validated at all in this reload (see `ProviderState.unvalidated`); none if absent. */
  readonly unvalidated?: ReadonlyArray<string> | undefined
}

/** The active route table: the merge of every route provider (route files, Docker labels, ...). */
export class Routes extends Context.Service<
  Routes,
  {
    readonly list: Effect.Effect<ReadonlyArray<RouteRecord>>
    readonly get: (alias: string) => Effect.Effect<RouteRecord, RouteNotFound>
    /** The current table, then the table again after every change. */
    readonly changes: Stream.Stream<ReadonlyArray<RouteRecord>>
    /** Asks every provider that can (route files) to read its source again; resolves once the table is updated. */
    readonly reload: Effect.Effect<ReloadOutcome>
    /**
     * The problems the route sources have right now (invalid or unreadable files, routes that lost a conflict
     * across providers), then the list again whenever it changes; empty when every source is fine.
     */
    readonly problems: Stream.Stream<ReadonlyArray<ValidationIssue>>
  }
>()("@gatehouse-edge/core/Routes") {
  /** A route table the test sets through {@link RoutesMemory}; `reload` changes nothing. */
  static readonly layerMemory = (initial: ReadonlyArray<RouteRecord> = []): Layer.Layer<Routes | RoutesMemory> =>
    Layer.effectContext(
      Effect.gen(function* () {
        const table = yield* SubscriptionRef.make(initial)
        const routes = Routes.of({
          list: SubscriptionRef.get(table),
          get: Effect.fn("Routes.get")(function* (alias: string) {
            const record = (yield* SubscriptionRef.get(table)).find((r) => r.route.alias === alias)
            return record ?? (yield* new RouteNotFound({ alias }))
          }),
          changes: SubscriptionRef.changes(table),
          reload: Effect.succeed({ added: [], removed: [], changed: [], issues: [] }),
          problems: Stream.concat(Stream.succeed([]), Stream.never)
        })
        const memory = RoutesMemory.of({ set: (records) => SubscriptionRef.set(table, records) })
        return Context.make(Routes, routes).pipe(Context.add(RoutesMemory, memory))
      })
    )

  /** A fixed route table (for tests and embedding). */
  static readonly layerTest = (records: ReadonlyArray<RouteRecord>): Layer.Layer<Routes> =>
    Layer.effect(
      Routes,
      Effect.map(Layer.build(Routes.layerMemory(records)), (context) => Context.get(context, Routes))
    )
}

/** Drives a `Routes.layerMemory` from a test: whatever table is set is what `list` and `changes` report. */
export class RoutesMemory extends Context.Service<
  RoutesMemory,
  { readonly set: (records: ReadonlyArray<RouteRecord>) => Effect.Effect<void> }
>()("@gatehouse-edge/core/RoutesMemory") {}
