import { assert, describe, it } from "@effect/vitest"
import type { HealthInfo } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer, Stream } from "effect"
import { Health, HealthMemory } from "../../src/health/Health.js"
import { RouteList } from "../../src/routes/RouteList.js"
import * as RouteListLive from "../../src/routes/RouteListLive.js"
import { type RouteRecord, Routes, RoutesMemory } from "../../src/routes/Routes.js"
import { eventually } from "../events/TestBus.js"
import { validRoute } from "./helpers.js"

const record = (alias: string): RouteRecord => ({
  route: validRoute(`${alias}:\n  port: 80\n`),
  provider: "file:a.yml",
  excluded: false
})
const healthy: HealthInfo = { status: "healthy", latency_ms: 1, uptime_s: 0, last_check: null }

const settle = Effect.repeat(Effect.yieldNow, { times: 200 })

describe("RouteList: the routes as listed, with health", () => {
  it.effect("one change gives one new list: a health map ahead of the table is not sent as the old list", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(
        RouteListLive.layer.pipe(
          Layer.provideMerge(Layer.merge(Routes.layerMemory([record("one")]), Health.layerMemory({ one: healthy })))
        )
      )
      const frames: Array<ReadonlyArray<string>> = []
      yield* Context.get(context, RouteList).changes.pipe(
        Stream.runForEach((list) => Effect.sync(() => frames.push(list.map((entry) => entry.alias)))),
        Effect.forkScoped
      )
      yield* eventually(
        "the first list",
        Effect.sync(() => frames.length === 1)
      )
      // Health follows the table, so it can see the new route before a subscriber of the table does.
      yield* Context.get(context, HealthMemory).set({ one: healthy, two: healthy })
      yield* settle
      yield* Context.get(context, RoutesMemory).set([record("one"), record("two")])
      yield* eventually(
        "the new list",
        Effect.sync(() => frames.length >= 2)
      )
      yield* settle
      assert.deepStrictEqual(frames, [["one"], ["one", "two"]])
    }).pipe(Effect.scoped)
  )

  it.effect("a route's health status change gives a new list with the new status", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(
        RouteListLive.layer.pipe(
          Layer.provideMerge(Layer.merge(Routes.layerMemory([record("one")]), Health.layerMemory({ one: healthy })))
        )
      )
      const statuses: Array<string> = []
      yield* Context.get(context, RouteList).changes.pipe(
        Stream.runForEach((list) => Effect.sync(() => statuses.push(list[0]!.health.status))),
        Effect.forkScoped
      )
      yield* eventually(
        "the first list",
        Effect.sync(() => statuses.length === 1)
      )
      yield* Context.get(context, HealthMemory).set({ one: { ...healthy, status: "unhealthy" } })
      yield* eventually(
        "the change",
        Effect.sync(() => statuses.length === 2)
      )
      assert.deepStrictEqual(statuses, ["healthy", "unhealthy"])
      const entry = yield* Context.get(context, RouteList).get("one")
      assert.deepStrictEqual([entry.provider, entry.excluded, entry.health.status], ["file:a.yml", false, "unhealthy"])
    }).pipe(Effect.scoped)
  )
})
