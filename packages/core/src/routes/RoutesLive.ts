import type { Route } from "@gatehouse-edge/contract/domain"
import { ConfigEvents, formatIssue, RouteNotFound, type ValidationIssue } from "@gatehouse-edge/contract/domain"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { Events } from "../events/Events.js"
import { publishOrLog } from "../events/PublishOrLog.js"
import { mergeProviderStates } from "./RouteMerge.js"
import { type ProviderState, type RouteProvider, RouteProviders } from "./RouteProviders.js"
import { type ReloadOutcome, type RouteRecord, Routes } from "./Routes.js"

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
        previous !== undefined &&
        (!sameRoute(previous.route, record.route) ||
          previous.provider !== record.provider ||
          previous.excluded !== record.excluded)
      )
    })
    .map(([alias]) => alias)
    .sort()
  return { added, removed, changed }
}

const containersOf = (records: ReadonlyArray<RouteRecord>) => JSON.stringify(records.map((r) => r.container ?? null))
const sameContainers = (a: ReadonlyArray<RouteRecord>, b: ReadonlyArray<RouteRecord>) =>
  containersOf(a) === containersOf(b)

interface Entry {
  readonly provider: RouteProvider
  state: ProviderState
}

const emptyState: ProviderState = { routes: [], issues: [] }

/**
 * The route table as the merge of its providers (see {@link RouteProviders}). Every change of a provider's state
 * — a reload, a Docker event, a provider added or removed — rebuilds the table, announces what changed as
 * `config/reload` and every problem as `config/error`. A provider whose states stream fails keeps its last state.
 */
const make = Effect.gen(function* () {
  const events = yield* Events
  const entries: Array<Entry> = []
  const table = yield* SubscriptionRef.make<ReadonlyArray<RouteRecord>>([])
  const problems = yield* SubscriptionRef.make<ReadonlyArray<ValidationIssue>>([])
  let byAlias = new Map<string, RouteRecord>()
  const lock = yield* Semaphore.make(1)

  // The table is already replaced when its events go out: a failing event store must neither undo the change nor
  // end the fiber that made it (a provider's, the file watcher's), or no change would be applied after it.
  const publish = publishOrLog(events, "route")

  // Rebuilds the table from every provider's state; `reported` are the problems the triggering change brought.
  // A provider joining or leaving is not a reload (the server starting, an integration stopping): the table
  // changes silently, but problems are always announced.
  const rebuild = (reported: ReadonlyArray<ValidationIssue>, announce = true): Effect.Effect<ReloadOutcome> =>
    Effect.gen(function* () {
      const merged = mergeProviderStates(entries.map((entry) => entry.state))
      const issues = [...reported, ...merged.issues]
      const standing = [...entries.flatMap((entry) => entry.state.issues), ...merged.issues]
      const hadProblems = (yield* SubscriptionRef.get(problems)).length > 0
      if (JSON.stringify(standing) !== JSON.stringify(yield* SubscriptionRef.get(problems))) {
        yield* SubscriptionRef.set(problems, standing)
      }
      const before = yield* SubscriptionRef.get(table)
      const changes = diff(before, merged.records)
      const routesChanged = changes.added.length + changes.removed.length + changes.changed.length > 0
      // A container that stopped or started changes no route, so it is no reload; health still follows it.
      if (routesChanged || !sameContainers(before, merged.records)) {
        byAlias = new Map(merged.records.map((record) => [record.route.alias, record]))
        yield* SubscriptionRef.set(table, merged.records)
        if (announce && routesChanged) yield* publish(ConfigEvents.reloaded({ source: "routes", ...changes }))
      }
      if (issues.length > 0) {
        // The log too, as for the config file: an operator reading it should not have to watch the events.
        yield* Effect.logWarning(
          `the route sources have ${issues.length} problem(s); the routes without problems are served`,
          ...issues.map(formatIssue)
        )
        yield* publish(ConfigEvents.rejected({ source: "routes", issues }))
      } else if (announce && !routesChanged && hadProblems && standing.length === 0) {
        // The problems went away without changing a route (the offending file was deleted, say): still a reload,
        // so whoever saw the `config/error` learns it is over.
        yield* publish(ConfigEvents.reloaded({ source: "routes", ...changes }))
      }
      return { ...changes, issues }
    })

  const applyState = (entry: Entry, state: ProviderState, first: boolean) =>
    lock.withPermits(1)(
      Effect.suspend(() => {
        // A state the table already holds (e.g. the result of a reload) changes nothing.
        if (state === entry.state) return Effect.void
        entry.state = state
        return Effect.asVoid(rebuild(state.issues, !first))
      })
    )

  const add = Effect.fn("RouteProviders.add")(function* (provider: RouteProvider) {
    if (entries.some((entry) => entry.provider.name === provider.name)) {
      return yield* Effect.die(new Error(`a route provider named ${provider.name} is already added`))
    }
    const entry: Entry = { provider, state: emptyState }
    entries.push(entry)
    yield* Effect.addFinalizer(() =>
      lock.withPermits(1)(
        Effect.suspend(() => {
          entries.splice(entries.indexOf(entry), 1)
          return Effect.asVoid(rebuild([], false))
        })
      )
    )
    const first = yield* Deferred.make<void>()
    yield* provider.states.pipe(
      Stream.zipWithIndex,
      Stream.runForEach(([state, index]) =>
        Effect.andThen(applyState(entry, state, index === 0), Deferred.succeed(first, undefined))
      ),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.logWarning(`route provider ${provider.name} failed; its last routes stay in the table`, cause)
      ),
      // A provider that ends (or fails) before its first state joins with no routes.
      Effect.ensuring(Deferred.done(first, Exit.void)),
      Effect.forkScoped
    )
    yield* Deferred.await(first)
  })

  const reload: Effect.Effect<ReloadOutcome> = Effect.gen(function* () {
    const reloadable = entries.filter((entry) => entry.provider.reload !== undefined)
    const states = yield* Effect.forEach(reloadable, (entry) => entry.provider.reload!)
    const outcome = yield* lock.withPermits(1)(
      Effect.suspend(() => {
        reloadable.forEach((entry, i) => {
          entry.state = states[i]!
        })
        return rebuild(states.flatMap((state) => state.issues))
      })
    )
    const unvalidated = states.flatMap((state) => (state.unvalidated === undefined ? [] : [state.unvalidated]))
    return unvalidated.length === 0 ? outcome : { ...outcome, unvalidated }
  }).pipe(Effect.withSpan("Routes.reload"))

  const routes = Routes.of({
    list: SubscriptionRef.get(table),
    get: Effect.fn("Routes.get")(function* (alias: string) {
      return byAlias.get(alias) ?? (yield* new RouteNotFound({ alias }))
    }),
    changes: SubscriptionRef.changes(table).pipe(Stream.changesWith((a, b) => a === b || Equal.equals(a, b))),
    reload,
    problems: SubscriptionRef.changes(problems)
  })
  return Context.make(Routes, routes).pipe(Context.add(RouteProviders, RouteProviders.of({ add })))
})

/** The route table and the registry its providers plug into; it starts empty until providers are added. */
export const layer: Layer.Layer<Routes | RouteProviders, never, Events> = Layer.effectContext(make)
