import { assert, describe, it } from "@effect/vitest"
import type { Route } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer, Logger, Queue, Scope, Stream } from "effect"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Events } from "../../src/events/Events.js"
import { type ProviderState, RouteProviders } from "../../src/routes/RouteProviders.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { eventually } from "../events/TestBus.js"
import { validRoute } from "./helpers.js"

const layer = RoutesLive.layer.pipe(
  Layer.provideMerge(EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory)))
)

const route = (alias: string, port: string | number): Route => validRoute(`${alias}:\n  port: "${port}"\n`)

const state = (source: string, ...routes: ReadonlyArray<Route>): ProviderState => ({
  routes: routes.map((r) => ({ route: r, source, excluded: false })),
  issues: []
})

/** A provider whose states the test pushes. */
const pushed = Effect.gen(function* () {
  const queue = yield* Queue.unbounded<ProviderState>()
  return { queue, states: Stream.fromQueue(queue) }
})

const aliases = (routes: Routes["Service"]) =>
  Effect.map(routes.list, (records) => records.map((r) => `${r.route.alias}@${r.provider}`))

describe("RouteProviders: the route table as a merge of providers", () => {
  it.live("a provider joins with its first state and leaves with its scope", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(layer)
      const routes = Context.get(context, Routes)
      const providers = Context.get(context, RouteProviders)
      const files = yield* pushed
      yield* Queue.offer(files.queue, state("file:a.yml", route("app", 80)))
      yield* providers.add({ name: "files", states: files.states })
      assert.deepStrictEqual(yield* aliases(routes), ["app@file:a.yml"], "in the table when add returns")

      const scope = yield* Scope.make()
      const docker = yield* pushed
      yield* Queue.offer(docker.queue, state("docker:local", route("web", 81)))
      yield* providers.add({ name: "docker:local", states: docker.states }).pipe(Scope.provide(scope))
      assert.deepStrictEqual(yield* aliases(routes), ["app@file:a.yml", "web@docker:local"])
      yield* Scope.close(scope, Effect.void as never)
      assert.deepStrictEqual(yield* aliases(routes), ["app@file:a.yml"])
    }).pipe(Effect.scoped)
  )

  it.live("conflicts across providers: the earlier provider wins, the later route is reported and left out", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(layer)
      const routes = Context.get(context, Routes)
      const providers = Context.get(context, RouteProviders)
      const files = yield* pushed
      yield* Queue.offer(files.queue, state("file:a.yml", route("app", 80), route("dns", "53:53")))
      yield* providers.add({ name: "files", states: files.states })
      const docker = yield* pushed
      yield* Queue.offer(
        docker.queue,
        state("docker:local", route("app", 81), route("dns2", "53:5353"), route("ok", 82))
      )
      yield* providers.add({ name: "docker:local", states: docker.states })
      assert.deepStrictEqual(yield* aliases(routes), ["app@file:a.yml", "dns@file:a.yml", "ok@docker:local"])
      const errors = (yield* Context.get(context, Events).history({ category: "config" })).filter(
        (e) => e.action === "error"
      )
      const issues = errors.flatMap(
        (e) =>
          (e.data as { issues: ReadonlyArray<{ provider?: string; path: ReadonlyArray<unknown>; message: string }> })
            .issues
      )
      assert.deepStrictEqual(
        issues.map((i) => [i.provider, i.path.join(".")]),
        [
          ["docker:local", "app"],
          ["docker:local", "dns2.port"]
        ]
      )
      assert.match(issues[0]!.message, /duplicate alias `app` \(first defined at a\.yml\)/)
    }).pipe(Effect.scoped)
  )

  it.live("a conflict between containers of two engines names both containers, not only their engines", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(layer)
      const providers = Context.get(context, RouteProviders)
      const inContainer = (source: string, name: string, r: Route): ProviderState => ({
        routes: [
          {
            route: r,
            source,
            excluded: false,
            container: {
              host: source.slice("docker:".length),
              id: `${name}-id`,
              name,
              state: "running",
              status: "Up",
              created: 1
            }
          }
        ],
        issues: []
      })
      const local = yield* pushed
      yield* Queue.offer(local.queue, inContainer("docker:local", "web-1", route("app", 80)))
      yield* providers.add({ name: "docker:local", states: local.states })
      const nas = yield* pushed
      yield* Queue.offer(nas.queue, inContainer("docker:nas", "web-2", route("app", 81)))
      yield* providers.add({ name: "docker:nas", states: nas.states })
      const errors = (yield* Context.get(context, Events).history({ category: "config" })).filter(
        (e) => e.action === "error"
      )
      const issues = errors.flatMap(
        (e) => (e.data as { issues: ReadonlyArray<{ provider?: string; message: string }> }).issues
      )
      assert.deepStrictEqual(
        issues.map((i) => [i.provider, i.message]),
        [["docker:nas", "container web-2: duplicate alias `app` (first defined at docker:local container web-1)"]]
      )
    }).pipe(Effect.scoped)
  )

  it.live(
    "problems are logged as well as announced; when they go away without a route changing, a reload says so",
    () => {
      const logged: Array<string> = []
      const captureLogs = Logger.layer([Logger.make(({ message }) => logged.push(String(message)))])
      return Effect.gen(function* () {
        const context = yield* Layer.build(layer)
        const providers = Context.get(context, RouteProviders)
        const events = Context.get(context, Events)
        const files = yield* pushed
        yield* Queue.offer(files.queue, state("file:a.yml", route("app", 80)))
        yield* providers.add({ name: "files", states: files.states })
        const bad: ProviderState = {
          ...state("file:a.yml", route("app", 80)),
          issues: [{ path: ["x", "port"], message: "port 99999 is out of range 0–65535", file: "b.yml", line: 2 }]
        }
        yield* Queue.offer(files.queue, bad)
        yield* eventually(
          "the problem announced",
          Effect.map(events.history({ category: "config" }), (all) => all.some((e) => e.action === "error"))
        )
        assert.isTrue(
          logged.some((line) => line.includes("1 problem(s)") && line.includes("port 99999 is out of range")),
          logged.join("\n")
        )
        // b.yml is deleted: the same routes, no problem left.
        yield* Queue.offer(files.queue, state("file:a.yml", route("app", 80)))
        yield* eventually(
          "a reload after the error",
          Effect.map(events.history({ category: "config" }), (all) => all.at(-1)?.action === "reload")
        )
        const reload = (yield* events.history({ category: "config" })).at(-1)!
        assert.deepInclude(reload.data, { source: "routes", added: [], removed: [], changed: [] })
      }).pipe(Effect.scoped, Effect.provide(captureLogs))
    }
  )

  it.live("a provider whose stream fails keeps its last routes; a new state replaces them", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(layer)
      const routes = Context.get(context, Routes)
      const providers = Context.get(context, RouteProviders)
      const failing = Stream.concat(
        Stream.succeed(state("docker:nas", route("nas", 5000))),
        Stream.die(new Error("engine went away"))
      )
      yield* providers.add({ name: "docker:nas", states: failing })
      const live = yield* pushed
      yield* Queue.offer(live.queue, state("docker:local", route("one", 1)))
      yield* providers.add({ name: "docker:local", states: live.states })
      assert.deepStrictEqual(yield* aliases(routes), ["nas@docker:nas", "one@docker:local"])
      yield* Queue.offer(live.queue, state("docker:local", route("two", 2)))
      yield* eventually(
        "the new state in the table",
        Effect.map(aliases(routes), (all) => all.join() === "nas@docker:nas,two@docker:local")
      )
    }).pipe(Effect.scoped)
  )
})
