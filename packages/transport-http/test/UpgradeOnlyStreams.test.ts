import { assert, describe, it } from "@effect/vitest"
import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { Effect } from "effect"
import { request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

type StreamName = keyof typeof StreamEndpoints

// Values for the path parameters of the declared streams, and the query a stream cannot be asked for without.
const pathSamples: Record<string, string> = { node: "pve1", vmid: "100", service: "nginx.service" }
const requiredQueries: Partial<Record<StreamName, string>> = {
  journal: "?node=pve1",
  tail: "?node=pve1&file=%2Fvar%2Flog%2Fsyslog"
}

const pathOf = (name: StreamName): string => {
  const stream = StreamEndpoints[name]
  const groups = GatehouseApi.groups as Record<string, { endpoints: Record<string, { path: string }> }>
  return groups[stream.group]!.endpoints[stream.endpoint]!.path.replace(/:(\w+)/g, (_, param) => {
    const sample = pathSamples[param]
    if (sample === undefined) throw new Error(`no sample value for the path parameter ${param} of ${name}`)
    return sample
  })
}

describe("streams declared upgrade-only", () => {
  it.live("answer a plain GET with 426, naming the path it asked for, as their declaration says", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const names = (Object.keys(StreamEndpoints) as Array<StreamName>).filter((n) => StreamEndpoints[n].upgradeOnly)
        assert.includeMembers(names, ["validate", "journal", "nodeJournal", "guestJournal", "unitJournal", "tail"])
        for (const name of names) {
          const path = pathOf(name)
          const reply = yield* request(`${h.origin}${path}${requiredQueries[name] ?? ""}`, { key: h.apiKey })
          assert.deepStrictEqual(
            [reply.status, reply.json?.error?.code, reply.json?.error?.message],
            [
              426,
              "upgrade_required",
              `${path} is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket)`
            ],
            name
          )
        }
      })
    )
  )

  it.live("echo a long path shortened, not whole", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const service = `${"a".repeat(300)}.service`
        const path = `/api/v1/hypervisor/journalctl/pve1/100/${service}`
        const reply = yield* request(`${h.origin}${path}`, { key: h.apiKey })
        assert.strictEqual(reply.status, 426)
        assert.strictEqual(
          reply.json.error.message,
          `${path.slice(0, 120)}… (${path.length} characters) is a WebSocket endpoint: connect with a WebSocket ` +
            "client (Upgrade: websocket)"
        )
      })
    )
  )
})
