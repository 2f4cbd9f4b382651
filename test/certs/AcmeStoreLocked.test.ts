import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Database } from "../../packages/core/src/store/SqliteDriver.js"
import { openWs, request } from "../../packages/transport-http/test/support/Http.js"
import { requireTool } from "../support/e2e.js"
import { acmeWorld } from "./AcmeWorld.js"

// A manual renewal against a real CA (pebble, names resolved by BIND) while another process holds the store's write
// lock (the sqlite3 shell in a transaction, a backup tool): the certificates are issued and installed, and the answer
// says so. The events cannot be stored; each waits the store's 5 s before it is given up (and logged).

const pebble = requireTool("pebble")
const named = requireTool("named")

const web = { name: "web", domains: ["web.gatehouse.test"], challenge: "http-01" } as const
const api = { name: "api", domains: ["api.gatehouse.test"], challenge: "http-01" } as const

describe.skipIf(pebble.skip || named.skip)("ACME renewal with the store locked", { timeout: 90_000 }, () => {
  it.live("renews both certificates: new serials, a final frame that is ok, a plain renewal that is 200", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* acmeWorld()
        const server = yield* world.server([web, api])
        yield* server.eventsUntil("renewed", 2)
        const serials = Effect.map(request(server.url("/cert/info"), { key: server.key }), (reply) =>
          (reply.json as ReadonlyArray<{ name: string; serial: string }>).map((c) => `${c.name}:${c.serial}`)
        )
        const before = yield* serials

        const other = new Database(path.join(world.dataDir, "gatehouse.db"))
        yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
        other.exec("BEGIN IMMEDIATE")

        const socket = yield* openWs(server.ws("/cert/renew"), { key: server.key })
        const closed = yield* Effect.promise(() => socket.closed)
        assert.strictEqual(closed.code, 1000)
        const frames = socket.frames.map((f) => JSON.parse(f))
        const result = frames.at(-1)
        assert.isTrue(result.ok, JSON.stringify(result))
        const renewed = (result.certs as ReadonlyArray<{ name: string; serial: string }>).map(
          (c) => `${c.name}:${c.serial}`
        )
        assert.deepStrictEqual(
          renewed.map((s) => s.split(":")[0]),
          ["web", "api"]
        )
        for (const [i, serial] of renewed.entries()) assert.notStrictEqual(serial, before[i], serial)
        assert.deepStrictEqual(yield* serials, renewed)

        const plain = yield* request(server.url("/cert/renew?name=web"), { key: server.key })
        assert.strictEqual(plain.status, 200, plain.text)
        assert.notStrictEqual(plain.json[0].serial, renewed[0]!.split(":")[1])

        other.exec("ROLLBACK")
        const stored = (yield* server.certEvents).filter((e) => e.action === "renewed")
        assert.strictEqual(stored.length, 2, "only the events from before the lock were stored")
      })
    )
  )
})
