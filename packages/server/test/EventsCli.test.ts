import { assert, describe, it } from "@effect/vitest"
import { type Event, GatehouseClient } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { startRestartableServer } from "../../../test/support/RestartableServer.js"
import { labelOf, testEvent } from "../../../test/support/TestEvents.js"
import { startTestServer } from "../../../test/support/TestServer.js"
import { waitFor } from "../../../test/support/WaitFor.js"
import { cliAgainst, ctrlC, followAgainst, jsonLines } from "./support/CliAgainst.js"

// `gatehouse events list` and `gatehouse events follow` as an operator runs them, against a real server (in this
// process) whose event bus the test publishes on; the output compared with what the typed client gets.

const clientOf = (baseUrl: string, apiKey: string) =>
  Effect.service(GatehouseClient).pipe(Effect.provide(GatehouseClient.layer({ baseUrl, apiKey })))

// An id shaped as an event id (a UUIDv7) that no event of this server has.
const neverAnEvent = "01890000-0000-7000-8000-000000000000"

describe("gatehouse events list", () => {
  it.live(
    "one line per event and --json as the API answers, with --category, --limit and --since; bad input exits 1 or 2",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const client = yield* clientOf(server.baseUrl, server.apiKey)
        const cli = cliAgainst(server)
        const first = yield* server.events.publish(testEvent("first"))
        yield* server.events.publish(testEvent("up", "health"))
        yield* server.events.publish(testEvent("spaced out"))

        const all = yield* client.events.list()
        const json = yield* cli(["events", "list", "--json"])
        assert.strictEqual(json.code, 0, json.stderr)
        assert.deepStrictEqual(JSON.parse(json.stdout), JSON.parse(JSON.stringify(all)))

        const text = yield* cli(["events", "list"])
        assert.strictEqual(text.code, 0, text.stderr)
        const lines = text.stdout.trimEnd().split("\n")
        assert.strictEqual(lines.length, all.length)
        const byId = new Map(lines.map((line) => [line.split(/\s+/)[0]!, line]))
        const lineOf = (e: Event) => byId.get(e.id) ?? assert.fail(`no line for ${e.id}`)
        const [, up, spaced] = all.slice(-3)
        assert.strictEqual(
          lineOf(first),
          `${first.id}  ${first.timestamp}  info   ${"config/reload".padEnd(24)}  source=routes added=first`
        )
        assert.strictEqual(
          lineOf(up!),
          `${up!.id}  ${up!.timestamp}  info   ${"health/up".padEnd(24)}  alias=up status=healthy previous=unhealthy latency_ms=0`
        )
        assert.match(lineOf(spaced!), /config\/reload +source=routes added="spaced out"$/)

        const health = yield* cli(["events", "list", "--category", "health", "--json"])
        assert.deepStrictEqual(
          (JSON.parse(health.stdout) as ReadonlyArray<Event>).map((e) => [e.category, labelOf(e)]),
          [["health", "up"]]
        )
        const newest = yield* cli(["events", "list", "--limit", "1", "--json"])
        assert.deepStrictEqual((JSON.parse(newest.stdout) as ReadonlyArray<Event>).map(labelOf), ["spaced out"])
        const after = yield* cli(["events", "list", "--since", first.id, "--json"])
        assert.deepStrictEqual((JSON.parse(after.stdout) as ReadonlyArray<Event>).map(labelOf), ["up", "spaced out"])

        // An id the history never held: the API's 404, its message on one line.
        const unknown = yield* cli(["events", "list", "--since", neverAnEvent])
        const refusal = yield* Effect.flip(client.events.list({ query: { since: neverAnEvent } }))
        assert.strictEqual(unknown.code, 1)
        assert.strictEqual(unknown.stderr, `gatehouse: ${refusal.message}\n`)
        const malformed = yield* cli(["events", "list", "--since", "yesterday"])
        assert.strictEqual(malformed.code, 1)
        assert.strictEqual(
          malformed.stderr,
          `gatehouse: invalid "since": expected an event id (a UUIDv7, in lower case)\n`
        )
        // Event ids are UUIDs, the same in either case.
        const upper = yield* cli(["events", "list", "--since", first.id.toUpperCase(), "--json"])
        assert.strictEqual(upper.stdout, after.stdout, upper.stderr)
        // A category the CLI does not know is a usage error, with the categories it knows.
        const typo = yield* cli(["events", "list", "--category", "helth"])
        assert.strictEqual(typo.code, 2, typo.stderr)
      }).pipe(Effect.scoped),
    // Eight CLI processes, each starting Node with tsx on the sources (about 2 s each; more on a busy machine).
    150_000
  )
})

describe("gatehouse events follow", () => {
  it.live(
    "prints each new event, resumes after the last one across a server restart (none twice, none missed), Ctrl-C: 0",
    () =>
      Effect.gen(function* () {
        const server = yield* startRestartableServer()
        const publish = (label: string) => Effect.flatMap(server.events, (events) => events.publish(testEvent(label)))
        yield* publish("before")
        const follow = yield* followAgainst(server, ["events", "follow", "--category", "config", "--json"])
        const labels = () => (jsonLines(follow.stdout()) as ReadonlyArray<Event>).map(labelOf)
        const until = (check: () => boolean, what: string) => waitFor(Effect.sync(check), Boolean, what, 30_000)
        yield* until(() => labels().includes("before"), "the history")
        yield* publish("live")
        yield* until(() => labels().includes("live"), "a live event")

        yield* server.stop
        yield* follow.stderrMatching(/connection lost/)
        yield* server.start
        // Published while the follow is away (or just back): replayed from the store after the last id delivered.
        yield* publish("while away")
        yield* follow.stderrMatching(/gatehouse: reconnected\n/)
        yield* publish("after")
        yield* until(() => labels().includes("after"), "an event after the reconnect")

        const end = yield* ctrlC(follow)
        assert.strictEqual(end.code, 0, end.stderr)
        const events = jsonLines(end.stdout) as ReadonlyArray<Event>
        assert.deepStrictEqual(
          events.map(labelOf).filter((label) => ["before", "live", "while away", "after"].includes(label)),
          ["before", "live", "while away", "after"]
        )
        assert.strictEqual(new Set(events.map((e) => e.id)).size, events.length, "an event printed twice")
        assert.isTrue(
          events.every((e) => e.category === "config"),
          "only the category asked for"
        )
      }).pipe(Effect.scoped),
    90_000
  )

  it.live(
    "one line per event, the same as events list prints",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const event = yield* server.events.publish(testEvent("shown"))
        const follow = yield* followAgainst(server, ["events", "follow", "--since", event.id])
        yield* server.events.publish(testEvent("next"))
        yield* follow.stdoutMatching(/added=next\n/)
        const end = yield* ctrlC(follow)
        assert.strictEqual(end.code, 0, end.stderr)
        const listed = yield* cliAgainst(server)(["events", "list", "--since", event.id])
        assert.strictEqual(end.stdout, listed.stdout)
        assert.match(end.stdout, /^\S+ {2}\S+ {2}info {3}config\/reload +source=routes added=next\n$/)
      }).pipe(Effect.scoped),
    60_000
  )
})
