import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { type AuthRequest, type AuthRequestFilter, AuthRequests, InvalidArgument } from "../../src/index.js"
import { storesUnderTest } from "../store/StoresUnderTest.js"
import { authRequestsOn, operator } from "./AuthRequestsTestLayer.js"

// Listing a page at a time (limit, before) with the filters of the SSH gate (src, dst, local_user, decided_after),
// on SQLite and, with GATEHOUSE_TEST_PG_URL (skipped without it, except under GATEHOUSE_E2E=1), on PostgreSQL:
// the same SQL must give the same pages on both. Time is the TestClock's, so creation times are exact.
const stores = storesUnderTest

const check = (src: string, dst: string, local_user: string) =>
  ({ kind: "ssh_check", ssh_check: { src, dst, local_user } }) as const
const registration = (machine: string) =>
  ({ kind: "registration", registration: { machine_key: machine, node_key: `nk-${machine}`, hostname: "h" } }) as const

const ids = (requests: ReadonlyArray<AuthRequest>) => requests.map((r) => r.auth_id)

/** Every page of the filter, `limit` at a time, from the cursor `start` (the first page without), to the end. */
const allPages = (filter: AuthRequestFilter, limit: number, start?: string) =>
  Effect.gen(function* () {
    const service = yield* AuthRequests
    const pages: Array<ReadonlyArray<string>> = []
    let before = start
    do {
      const page = yield* service.listPage({ ...filter, limit, ...(before === undefined ? {} : { before }) })
      pages.push(ids(page.auth_requests))
      before = page.next_before
      if (pages.length > 100) return yield* Effect.die(new Error("the cursors never end"))
    } while (before !== undefined)
    return pages
  })

const failureOf = <A>(effect: Effect.Effect<A, InvalidArgument, AuthRequests>) =>
  Effect.flip(effect).pipe(Effect.map((error) => (error instanceof InvalidArgument ? error.message : String(error))))

for (const store of stores) {
  const run = (name: string, body: Effect.Effect<void, unknown, AuthRequests>) =>
    it.effect(name, () =>
      Effect.gen(function* () {
        yield* body.pipe(Effect.provide(authRequestsOn(yield* store.open)))
      }).pipe(Effect.scoped)
    )

  describe.skipIf(store.skip)(`listing auth requests page by page (${store.name})`, () => {
    run(
      "pages hold every request exactly once, newest first; the last page has no cursor, even when it is full",
      Effect.gen(function* () {
        const service = yield* AuthRequests
        const created: Array<string> = []
        for (let i = 0; i < 7; i++) {
          created.push((yield* service.create(check("10.0.0.1", `h${i}`, "root"), operator)).auth_id)
          yield* TestClock.adjust("1 second")
        }
        const newestFirst = [...created].reverse()
        assert.deepStrictEqual(yield* allPages({}, 3), [
          newestFirst.slice(0, 3),
          newestFirst.slice(3, 6),
          newestFirst.slice(6)
        ])
        // A last page that is exactly full says so: no cursor that leads to an empty page.
        assert.deepStrictEqual(yield* allPages({}, 7), [newestFirst])
        assert.deepStrictEqual(ids(yield* service.list({})), newestFirst, "no limit: the default page, 1000")
      })
    )

    run(
      "requests created in the same millisecond are told apart by auth_id, across a page boundary",
      Effect.gen(function* () {
        const service = yield* AuthRequests
        const created = new Set<string>()
        for (let i = 0; i < 9; i++)
          created.add((yield* service.create(check("10.0.0.1", "h", "root"), operator)).auth_id)
        const whole = ids(yield* service.list({}))
        const pages = yield* allPages({}, 2)
        assert.deepStrictEqual(pages.flat(), whole)
        assert.strictEqual(new Set(whole).size, 9)
        assert.deepStrictEqual(new Set(whole), created)
        assert.strictEqual(pages.length, 5)
      })
    )

    run(
      "a cursor keeps its place while requests are created between pages",
      Effect.gen(function* () {
        const service = yield* AuthRequests
        for (let i = 0; i < 6; i++) {
          yield* service.create(check("10.0.0.1", `h${i}`, "root"), operator)
          yield* TestClock.adjust("1 second")
        }
        const before = ids(yield* service.list({}))
        const first = yield* service.listPage({ limit: 2 })
        const added: Array<string> = []
        for (let i = 0; i < 3; i++)
          added.push((yield* service.create(check("10.0.0.9", "new", "root"), operator)).auth_id)
        const rest = yield* allPages({}, 2, first.next_before)
        assert.deepStrictEqual([...ids(first.auth_requests), ...rest.flat()], before)
        // The new requests are there for whoever starts again.
        assert.deepStrictEqual(ids(yield* service.list({ limit: 3 })).sort(), added.sort())
      })
    )

    run(
      "filters apply in the store, before the page is cut: state, kind, src, dst, local_user, decided_after",
      Effect.gen(function* () {
        const service = yield* AuthRequests
        // Each request a second after the one before, so the expected order is the order of creation.
        const create = (input: Parameters<typeof service.create>[0]) =>
          Effect.tap(service.create(input, operator), () => TestClock.adjust("1 second"))
        const target = yield* create(check("10.0.0.5", "web1", "root"))
        yield* service.approve(target.auth_id, "x")
        const decidedAt = Date.parse((yield* service.get(target.auth_id)).decided_at!)
        const otherDst = yield* create(check("10.0.0.5", "web2", "root"))
        yield* service.approve(otherDst.auth_id, "x")
        // Newer and more numerous than the target: a filter applied after the page was cut would miss it.
        for (const [src, user] of [
          ["10.0.0.6", "root"],
          ["10.0.0.5", "admin"],
          ["10.0.0.6", "admin"]
        ] as const) {
          for (let i = 0; i < 3; i++) yield* service.approve((yield* create(check(src, "web1", user))).auth_id, "x")
        }
        const pending = yield* create(check("10.0.0.5", "web1", "root"))
        const joining = yield* create(registration("m1"))
        const rejected = yield* create(check("10.0.0.5", "web1", "root"))
        yield* service.reject(rejected.auth_id, "x")

        const only = (filter: AuthRequestFilter) => service.list(filter).pipe(Effect.map(ids))
        const gate = { state: "approved", kind: "ssh_check", src: "10.0.0.5", local_user: "root" } as const
        assert.deepStrictEqual(yield* only({ ...gate, dst: "web1", limit: 1 }), [target.auth_id])
        assert.deepStrictEqual(yield* only({ ...gate, limit: 1 }), [otherDst.auth_id])
        assert.deepStrictEqual(yield* only(gate), [otherDst.auth_id, target.auth_id])
        assert.deepStrictEqual(yield* only({ src: "10.0.0.5", dst: "web1", local_user: "root" }), [
          rejected.auth_id,
          pending.auth_id,
          target.auth_id
        ])
        assert.deepStrictEqual(yield* only({ state: "pending" }), [joining.auth_id, pending.auth_id])
        assert.deepStrictEqual(yield* only({ kind: "registration" }), [joining.auth_id])
        assert.deepStrictEqual(yield* only({ dst: "web2" }), [otherDst.auth_id])
        // decided_after is exclusive, to the millisecond; undecided requests never match it.
        const at = (ms: number) => new Date(ms).toISOString()
        assert.deepStrictEqual(yield* only({ ...gate, dst: "web1", decided_after: at(decidedAt - 1) }), [
          target.auth_id
        ])
        assert.deepStrictEqual(yield* only({ ...gate, dst: "web1", decided_after: at(decidedAt) }), [])
        assert.deepStrictEqual(
          yield* only({ src: "10.0.0.5", dst: "web1", local_user: "root", decided_after: at(decidedAt) }),
          [rejected.auth_id]
        )
        // A page of the filtered list is followed by its own cursor.
        assert.deepStrictEqual(yield* allPages({ ...gate }, 1), [[otherDst.auth_id], [target.auth_id]])
      })
    )

    run(
      "a bad cursor, page size or filter value is refused with InvalidArgument naming it",
      Effect.gen(function* () {
        const service = yield* AuthRequests
        const request = yield* service.create(check("10.0.0.1", "h", "root"), operator)
        const unknown = `ghreq_${"u".repeat(24)}`
        const cases: ReadonlyArray<readonly [AuthRequestFilter, string]> = [
          [{ before: "nope" }, "before: not an auth_id: auth_id must start with ghreq_"],
          [{ before: "" }, "before: not an auth_id: auth_id is required"],
          [
            { before: unknown },
            `before: auth request ${unknown} not found (deleted after its retention, or never there); ` +
              "start again from the first page"
          ],
          [{ limit: 0 }, "limit: must be a whole number from 1 to 1000"],
          [{ limit: 1001 }, "limit: must be a whole number from 1 to 1000"],
          [{ limit: 2.5 }, "limit: must be a whole number from 1 to 1000"],
          [{ src: "" }, "src: must not be empty (leave it out to match any)"],
          [{ local_user: "a\nb" }, "local_user: must be 1-255 printable characters"],
          [
            { decided_after: "yesterday" },
            "decided_after: must be an RFC 3339 time with a zone, such as 2026-01-02T03:04:05Z"
          ],
          [
            { decided_after: "2026-01-02T03:04:05" },
            "decided_after: must be an RFC 3339 time with a zone, such as 2026-01-02T03:04:05Z"
          ]
        ]
        for (const [filter, message] of cases) {
          assert.strictEqual(yield* failureOf(service.listPage(filter)), message, JSON.stringify(filter))
          assert.strictEqual(yield* failureOf(service.list(filter)), message, JSON.stringify(filter))
        }
        assert.deepStrictEqual(ids(yield* service.list({ limit: 1000, before: request.auth_id })), [])
      })
    )
  })
}
