import { assert, describe, it } from "@effect/vitest"
import { createGatehouseClient, EventNotFound, EventsTrimmed } from "@gatehouse-edge/client"
import { Effect, Stream } from "effect"
import { v7 } from "uuid"
import { labelOf, testEvent } from "../../../test/support/TestEvents.js"
import { startTestServer } from "../../../test/support/TestServer.js"
import { clientFor } from "./support/Clients.js"

/** A server whose history keeps 10 events, a client that saw n0–n4 and was away while 30 more came. */
const trimmedWhileAway = Effect.gen(function* () {
  const server = yield* startTestServer({ configYaml: "events:\n  history: 10\n" })
  const client = yield* clientFor(server.baseUrl, server.apiKey)
  for (let i = 0; i < 5; i++) yield* server.events.publish(testEvent(`n${i}`))
  const seen = (yield* client.events.list({ query: { category: "config" } })).at(-1)!.id
  for (let i = 5; i < 35; i++) yield* server.events.publish(testEvent(`n${i}`))
  return { server, client, seen }
})

/** What `effect` fails with; a test failure when it succeeds instead. */
const failureOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.flip(
    Effect.flatMap(effect, (value) => Effect.die(new Error(`expected a failure, got ${JSON.stringify(value)}`)))
  )

describe("events: a resume the history cannot continue is a typed error, never a silent gap", () => {
  it.live("list and watch fail with EventsTrimmed for a since the cap dropped, EventNotFound for a foreign one", () =>
    Effect.gen(function* () {
      const { client, seen } = yield* trimmedWhileAway
      const listed = yield* failureOf(client.events.list({ query: { since: seen, category: "config" } }))
      assert.instanceOf(listed, EventsTrimmed)
      assert.strictEqual(listed.since, seen)
      const kept = yield* client.events.list({ query: { category: "config" } })
      assert.strictEqual(listed.oldest_id, kept[0]!.id)
      // The refused upgrade decodes into the same class: the watcher learns, and does not loop on 1008s.
      const watched = yield* failureOf(Stream.runCollect(client.events.watch({ since: seen }).pipe(Stream.take(10))))
      assert.instanceOf(watched, EventsTrimmed)

      const foreign = v7({ msecs: Date.UTC(2100, 0, 1), seq: 0 })
      assert.instanceOf(yield* failureOf(client.events.list({ query: { since: foreign } })), EventNotFound)
      const unknown = yield* failureOf(Stream.runCollect(client.events.watch({ since: foreign }).pipe(Stream.take(1))))
      assert.instanceOf(unknown, EventNotFound)
    }).pipe(Effect.scoped)
  )

  it.live("the promise client rejects with the same classes, and pages on with since without a gap", () =>
    Effect.gen(function* () {
      const { server, seen } = yield* trimmedWhileAway
      const client = createGatehouseClient({ baseUrl: server.baseUrl, apiKey: server.apiKey })
      yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
      const outcome = yield* Effect.promise(async () => {
        const listed = await client.events.list({ since: seen }).then(
          (events) => `resolved with ${events.length} events`,
          (error: unknown) => error
        )
        let watched: unknown
        try {
          // An event instead of the error is the gap: stop at the first.
          for await (const event of client.events.watch({ since: seen })) {
            watched = event
            break
          }
        } catch (error) {
          watched = error
        }
        // Polling from the oldest kept event: pages of 3, each from the last id of the one before.
        const kept = await client.events.list({ category: "config" })
        const pages: Array<Array<string>> = []
        let since = kept[0]!.id
        for (;;) {
          const page = await client.events.list({ since, limit: 3, category: "config" })
          pages.push(page.map(labelOf))
          if (page.length < 3) break
          since = page.at(-1)!.id
        }
        return { listed, watched, pages }
      })
      assert.instanceOf(outcome.listed, EventsTrimmed)
      assert.instanceOf(outcome.watched, EventsTrimmed)
      assert.deepStrictEqual(outcome.pages, [["n26", "n27", "n28"], ["n29", "n30", "n31"], ["n32", "n33", "n34"], []])
    }).pipe(Effect.scoped)
  )
})
