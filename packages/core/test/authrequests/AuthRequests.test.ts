import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import {
  AuthRequestAlreadyDecided,
  AuthRequestExpired,
  AuthRequestNotFound,
  AuthRequests,
  AuthRequestsLive,
  AuthRequestWrongKind,
  EventBus,
  EventRepository,
  Events,
  InvalidArgument,
  type Recorded,
  StoreLive,
  UserAlreadyExists,
  UserNotFound
} from "../../src/index.js"
import { authRequestsOn, operator } from "./AuthRequestsTestLayer.js"

const registration = (machine: string, hostname = "laptop") =>
  ({ kind: "registration", registration: { machine_key: machine, node_key: `nk-${machine}`, hostname } }) as const
const sshCheck = { kind: "ssh_check", ssh_check: { src: "127.0.0.1", dst: "db1", local_user: "root" } } as const

/** Lets forked fibers (the sweeper) run until `check` holds; bounded, so a broken sweeper fails the test. */
const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, check: (a: A) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1000; i++) {
      const value = yield* read
      if (check(value)) return value
      yield* Effect.yieldNow
    }
    return yield* read
  })

const failureOf = <A, E>(effect: Effect.Effect<A, E, AuthRequests>) =>
  Effect.flip(effect).pipe(Effect.map((error) => error as unknown))

describe("AuthRequests", () => {
  it.effect("creates a pending request with a ghreq_ id and records it in the history", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const created = yield* service.create(sshCheck, operator)
      assert.match(created.auth_id, /^ghreq_[A-Za-z0-9_-]{24}$/)
      assert.strictEqual(created.state, "pending")
      assert.strictEqual(Date.parse(created.expires_at) - Date.parse(created.created_at), 15 * 60_000)
      assert.deepStrictEqual(created.ssh_check, sshCheck.ssh_check)
      assert.deepStrictEqual(yield* service.get(created.auth_id), created)
      const history = yield* (yield* Events).history({ category: "auth_request" })
      assert.deepStrictEqual(
        history.map((e) => [e.action, (e.data as { auth_id: string }).auth_id]),
        [["created", created.auth_id]]
      )
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("the first verdict is final: the same verdict again is fine, the opposite one fails", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const { auth_id } = yield* service.create(sshCheck, operator)
      const approved = yield* service.approve(auth_id, "api-key:admin")
      assert.strictEqual(approved.state, "approved")
      assert.strictEqual(approved.decided_by, "api-key:admin")
      const again = yield* service.approve(auth_id, "api-key:other")
      assert.strictEqual(again.decided_by, "api-key:admin", "the stored verdict, not a second one")
      const refused = yield* failureOf(service.reject(auth_id, "api-key:admin"))
      assert.instanceOf(refused, AuthRequestAlreadyDecided)
      assert.strictEqual((refused as AuthRequestAlreadyDecided).message, "auth request already approved")

      const other = yield* service.create(sshCheck, operator)
      yield* service.reject(other.auth_id, "user:alice")
      assert.strictEqual((yield* service.reject(other.auth_id, "user:alice")).state, "rejected")
      assert.instanceOf(yield* failureOf(service.approve(other.auth_id, "user:alice")), AuthRequestAlreadyDecided)
      const history = yield* (yield* Events).history({ category: "auth_request" })
      assert.deepStrictEqual(
        history.map((e) => e.action),
        ["created", "approved", "created", "rejected"]
      )
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("checks ids before looking them up", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      for (const bad of [
        "",
        "ghreq_",
        "ghreq_short",
        `ghreq_${"a".repeat(25)}`,
        `ghreq_${"a".repeat(23)}!`,
        `xxreq_${"a".repeat(24)}`
      ]) {
        for (const call of [
          service.approve(bad, "x"),
          service.reject(bad, "x"),
          service.register(bad, "alice", "x"),
          service.get(bad)
        ]) {
          const error = yield* failureOf(call as Effect.Effect<unknown, unknown, AuthRequests>)
          assert.instanceOf(error, InvalidArgument, `for ${JSON.stringify(bad)}`)
        }
      }
      assert.strictEqual(
        ((yield* failureOf(service.get(""))) as InvalidArgument).message,
        "auth_id: auth_id is required"
      )
      assert.instanceOf(yield* failureOf(service.approve(`ghreq_${"a".repeat(24)}`, "x")), AuthRequestNotFound)
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("expires after the TTL, wakes its watchers with expired, and refuses verdicts after", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const { auth_id } = yield* service.create(sshCheck, operator)
      const watcher = yield* service.watch(auth_id).pipe(Stream.runCollect, Effect.forkChild)
      yield* TestClock.adjust("14 minutes")
      assert.strictEqual((yield* service.get(auth_id)).state, "pending")
      yield* TestClock.adjust("1 minute")
      const seen = yield* Fiber.join(watcher)
      assert.deepStrictEqual(
        seen.map((r) => r.state),
        ["pending", "expired"]
      )
      const error = yield* failureOf(service.approve(auth_id, "api-key:admin"))
      assert.instanceOf(error, AuthRequestExpired)
      assert.strictEqual((error as AuthRequestExpired).message, "auth request expired")
      const expired = (yield* (yield* Events).history({ category: "auth_request" })).at(-1)!
      assert.strictEqual(expired.action, "expired")
      assert.deepStrictEqual(expired.data, { auth_id, kind: "ssh_check", reason: "ttl" })
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("a sweep the store fails is logged and tried again: the request still expires, its watchers told", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const service = yield* AuthRequests
      // One storage failure when the sweeper marks a request expired (a full disk, an I/O error).
      yield* sql`CREATE TRIGGER fail_expiry BEFORE UPDATE ON auth_requests WHEN NEW.state = 'expired'
        BEGIN SELECT RAISE(ABORT, 'simulated I/O error'); END`
      const { auth_id } = yield* service.create(sshCheck, operator)
      const watcher = yield* service.watch(auth_id).pipe(Stream.runCollect, Effect.forkChild)
      yield* TestClock.adjust("15 minutes")
      yield* sql`DROP TRIGGER fail_expiry`
      assert.strictEqual((yield* service.get(auth_id)).state, "pending", "the failed sweep changed nothing")
      yield* TestClock.adjust("5 seconds")
      const seen = yield* Fiber.join(watcher)
      assert.deepStrictEqual(
        seen.map((r) => r.state),
        ["pending", "expired"]
      )
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("past the pending cap the oldest pending request expires first", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const ids: Array<string> = []
      for (let i = 0; i < 4; i++) {
        ids.push((yield* service.create(sshCheck, operator)).auth_id)
        yield* TestClock.adjust("1 second")
      }
      const states = yield* Effect.forEach(ids, (id) => service.get(id).pipe(Effect.map((r) => r.state)))
      assert.deepStrictEqual(states, ["expired", "pending", "pending", "pending"])
      assert.deepStrictEqual(
        (yield* service.list({ state: "pending" })).map((r) => r.auth_id),
        ids.slice(1).reverse()
      )
      const expired = (yield* (yield* Events).history({ category: "auth_request" })).find((e) => e.action === "expired")
      assert.deepStrictEqual(expired?.data, { auth_id: ids[0], kind: "ssh_check", reason: "pending_cap" })
    }).pipe(Effect.provide(authRequestsOn(undefined, { maxPending: 3 })))
  )

  it.effect("concurrent creates past the pending cap (one group commit) leave exactly the cap pending", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const created = yield* Effect.forEach(Array.from({ length: 10 }), () => service.create(sshCheck, operator), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual([...new Set(created.map((r) => r.state))], ["pending"])
      const pending = yield* service.list({ state: "pending" })
      const expired = yield* service.list({ state: "expired" })
      assert.strictEqual(pending.length, 3)
      assert.strictEqual(expired.length, 7)
      const history = yield* (yield* Events).history({ category: "auth_request" })
      assert.strictEqual(history.filter((e) => e.action === "created").length, 10)
      assert.sameMembers(
        history.filter((e) => e.action === "expired").map((e) => (e.data as { auth_id: string }).auth_id),
        expired.map((r) => r.auth_id)
      )
      for (const e of history.filter((e) => e.action === "expired")) {
        assert.strictEqual((e.data as { reason: string }).reason, "pending_cap")
        const id = (e.data as { auth_id: string }).auth_id
        const createdAt = history.findIndex(
          (c) => c.action === "created" && (c.data as { auth_id: string }).auth_id === id
        )
        assert.isBelow(createdAt, history.indexOf(e), "created before it expired")
      }
      // Two more, one at a time: the count the batches keep is the one the store has.
      yield* service.create(sshCheck, operator)
      yield* service.create(sshCheck, operator)
      assert.strictEqual((yield* service.list({ state: "pending" })).length, 3)
    }).pipe(Effect.provide(authRequestsOn(undefined, { maxPending: 3 })))
  )

  it.effect("register binds a registration to a user and allocates addresses; the same machine keeps its node", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const first = yield* service.create(registration("mkey-1", "Alice's Laptop"), operator)
      assert.instanceOf(yield* failureOf(service.register(first.auth_id, "alice", "api-key:admin")), UserNotFound)
      assert.instanceOf(yield* failureOf(service.register(first.auth_id, "", "api-key:admin")), InvalidArgument)
      const alice = yield* service.createUser({ name: "alice", email: "alice@example.test" })
      assert.instanceOf(yield* failureOf(service.createUser({ name: "alice" })), UserAlreadyExists)
      assert.instanceOf(yield* failureOf(service.createUser({ name: "Alice" })), InvalidArgument)

      const node = yield* service.register(first.auth_id, "alice", "api-key:admin")
      assert.deepStrictEqual(node.ip_addresses, ["100.64.0.1", "fd7a:115c:a1e0::1"])
      assert.strictEqual(node.given_name, "alice-s-laptop")
      assert.deepStrictEqual(node.user, alice)
      const registered = yield* service.get(first.auth_id)
      assert.strictEqual(registered.state, "registered")
      assert.deepStrictEqual(registered.node, node)
      assert.deepStrictEqual(registered.user, alice)
      // The same verdict again returns the node; the opposite one is refused.
      assert.deepStrictEqual(yield* service.register(first.auth_id, "alice", "api-key:admin"), node)
      assert.instanceOf(yield* failureOf(service.approve(first.auth_id, "x")), AuthRequestAlreadyDecided)

      const second = yield* service.create(registration("mkey-2", "Alice's Laptop"), operator)
      const other = yield* service.register(second.auth_id, "alice", "api-key:admin")
      assert.deepStrictEqual(other.ip_addresses, ["100.64.0.2", "fd7a:115c:a1e0::2"])
      assert.strictEqual(other.given_name, "alice-s-laptop-2")

      const again = yield* service.create(
        {
          kind: "registration",
          registration: { machine_key: "mkey-1", node_key: "nk-new", hostname: "laptop" }
        },
        operator
      )
      const reauthorised = yield* service.register(again.auth_id, "alice", "api-key:admin")
      assert.strictEqual(reauthorised.id, node.id)
      assert.deepStrictEqual(reauthorised.ip_addresses, node.ip_addresses)
      assert.strictEqual(reauthorised.node_key, "nk-new")
      assert.deepStrictEqual(
        (yield* service.listNodes("alice")).map((n) => n.id),
        [node.id, other.id]
      )
      assert.instanceOf(yield* failureOf(service.listNodes("bob")), UserNotFound)

      const check = yield* service.create(sshCheck, operator)
      const wrong = yield* failureOf(service.register(check.auth_id, "alice", "api-key:admin"))
      assert.instanceOf(wrong, AuthRequestWrongKind)
      assert.strictEqual((yield* service.get(check.auth_id)).state, "pending")
      const registeredEvents = (yield* (yield* Events).history({ category: "auth_request" })).filter(
        (e) => e.action === "registered"
      )
      assert.deepStrictEqual(
        registeredEvents.map((e) => (e.data as { reauthorised: boolean }).reauthorised),
        [false, false, true]
      )
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("an approved registration creates no node and can no longer be registered (the README says so)", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      yield* service.createUser({ name: "alice" })
      const request = yield* service.create(registration("mkey-approved"), operator)
      assert.strictEqual((yield* service.approve(request.auth_id, "api-key:admin")).state, "approved")
      assert.deepStrictEqual(yield* service.listNodes(), [])
      const refused = yield* failureOf(service.register(request.auth_id, "alice", "api-key:admin"))
      assert.instanceOf(refused, AuthRequestAlreadyDecided)
      assert.strictEqual((refused as AuthRequestAlreadyDecided).message, "auth request already approved")
      assert.deepStrictEqual(yield* service.listNodes(), [])
      // Asking again is the way in.
      const again = yield* service.create(registration("mkey-approved"), operator)
      const node = yield* service.register(again.auth_id, "alice", "api-key:admin")
      assert.strictEqual(node.machine_key, "mkey-approved")
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("a full address pool refuses the registration and keeps the request pending", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      yield* service.createUser({ name: "alice" })
      const a = yield* service.create(registration("m1"), operator)
      const b = yield* service.create(registration("m2"), operator)
      const c = yield* service.create(registration("m3"), operator)
      yield* service.register(a.auth_id, "alice", "x")
      yield* service.register(b.auth_id, "alice", "x")
      const error = yield* failureOf(service.register(c.auth_id, "alice", "x"))
      assert.strictEqual((error as Error).message, "no free address left in 10.9.0.0/30")
      assert.strictEqual((yield* service.get(c.auth_id)).state, "pending")
      assert.strictEqual((yield* service.listNodes()).length, 2)
    }).pipe(Effect.provide(authRequestsOn(undefined, { ipv4Prefix: "10.9.0.0/30" })))
  )

  it.effect("watch sends the current state first, then each change, and ends when final", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const { auth_id } = yield* service.create(sshCheck, operator)
      const watcher = yield* service.watch(auth_id).pipe(Stream.runCollect, Effect.forkChild)
      // The watcher is registered once it has read the current state; wait for that, not for a timer.
      const counter = yield* AuthRequestsLive.AuthRequestWaiterCount
      while ((yield* counter.get) === 0) yield* Effect.yieldNow
      yield* service.approve(auth_id, "user:alice")
      const seen = yield* Fiber.join(watcher)
      assert.deepStrictEqual(
        seen.map((r) => [r.state, r.decided_by]),
        [
          ["pending", undefined],
          ["approved", "user:alice"]
        ]
      )
      assert.strictEqual(yield* counter.get, 0, "the watcher is gone once the stream ended")
      // Watching a decided request gives the stored verdict at once.
      const late = yield* service.watch(auth_id).pipe(Stream.runCollect)
      assert.deepStrictEqual(
        late.map((r) => r.state),
        ["approved"]
      )
      const unknown = yield* Effect.flip(service.watch(`ghreq_${"b".repeat(24)}`).pipe(Stream.runCollect))
      assert.instanceOf(unknown, AuthRequestNotFound)
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("an interrupted watcher is removed", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const counter = yield* AuthRequestsLive.AuthRequestWaiterCount
      const { auth_id } = yield* service.create(sshCheck, operator)
      const watchers = yield* Effect.forEach([1, 2, 3], () =>
        service.watch(auth_id).pipe(Stream.runCollect, Effect.forkChild)
      )
      while ((yield* counter.get) < 3) yield* Effect.yieldNow
      yield* Fiber.interruptAll(watchers)
      assert.strictEqual(yield* counter.get, 0)
      assert.strictEqual((yield* service.get(auth_id)).state, "pending")
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("of two concurrent opposite verdicts exactly one wins", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      for (let round = 0; round < 20; round++) {
        const { auth_id } = yield* service.create(sshCheck, operator)
        const [approve, reject] = yield* Effect.all(
          [Effect.exit(service.approve(auth_id, "a")), Effect.exit(service.reject(auth_id, "b"))],
          { concurrency: 2 }
        )
        assert.strictEqual([approve, reject].filter(Exit.isSuccess).length, 1)
        const final = yield* service.get(auth_id)
        assert.strictEqual(final.state, Exit.isSuccess(approve) ? "approved" : "rejected")
      }
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("decided requests stay listable until their retention has passed", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const old = yield* service.create(sshCheck, operator)
      yield* service.approve(old.auth_id, "x")
      yield* TestClock.adjust("70 minutes")
      const recent = yield* service.create(sshCheck, operator)
      yield* service.reject(recent.auth_id, "x")
      assert.strictEqual((yield* service.list({})).length, 2)
      // The sweeper runs at least hourly (it is not woken by a new request that expires after its next run): by
      // 2 h 1 min it has run after the first verdict passed its retention (1 h), and deleting only what was
      // decided before now - 1 h, it cannot have deleted the second one (decided at 1 h 10 min).
      yield* TestClock.adjust("51 minutes")
      const left = yield* eventually(service.list({}), (list) => list.length < 2)
      assert.deepStrictEqual(
        left.map((r) => r.auth_id),
        [recent.auth_id]
      )
    }).pipe(Effect.provide(authRequestsOn(undefined, { retentionMs: 60 * 60_000 })))
  )

  it.effect("lists with filters, newest first", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      const a = yield* service.create(sshCheck, operator)
      yield* TestClock.adjust("1 second")
      const b = yield* service.create(registration("m"), operator)
      yield* TestClock.adjust("1 second")
      const c = yield* service.create(sshCheck, operator)
      yield* service.approve(c.auth_id, "x")
      const ids = (filter: Parameters<AuthRequests["Service"]["list"]>[0]) =>
        service.list(filter).pipe(Effect.map((list) => list.map((r) => r.auth_id)))
      assert.deepStrictEqual(yield* ids({}), [c.auth_id, b.auth_id, a.auth_id])
      assert.deepStrictEqual(yield* ids({ kind: "ssh_check" }), [c.auth_id, a.auth_id])
      assert.deepStrictEqual(yield* ids({ state: "pending", kind: "ssh_check" }), [a.auth_id])
      assert.deepStrictEqual(yield* ids({ state: "approved" }), [c.auth_id])
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.effect("rejects unprintable or oversized request fields", () =>
    Effect.gen(function* () {
      const service = yield* AuthRequests
      for (const local_user of ["", "ro\not", "x".repeat(256), "a\u202eb"]) {
        const error = yield* failureOf(
          service.create({ kind: "ssh_check", ssh_check: { ...sshCheck.ssh_check, local_user } }, operator)
        )
        assert.instanceOf(error, InvalidArgument, JSON.stringify(local_user))
      }
      assert.strictEqual((yield* service.list({})).length, 0)
    }).pipe(Effect.provide(authRequestsOn()))
  )

  it.live("a register interrupted once its change is committed still tells the request's watchers", () =>
    Effect.gen(function* () {
      const committed = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // The real event bus, with a pause right after a registration's transaction commits: where a cancel lands.
      const pausingEvents = Layer.effect(
        Events,
        Effect.gen(function* () {
          const real = yield* Events
          return Events.of({
            ...real,
            transaction: <A, E, R>(change: Effect.Effect<Recorded<A>, E, R>): Effect.Effect<A, E, R> => {
              let registers = false
              const noted = Effect.map(change, (recorded) => {
                registers = recorded.events.some((event) => event.action === "registered")
                return recorded
              })
              return Effect.tap(real.transaction(noted), () =>
                registers
                  ? Effect.andThen(Deferred.succeed(committed, undefined), Deferred.await(release))
                  : Effect.void
              )
            }
          })
        })
      ).pipe(Layer.provide(EventBus.layer({ historyCap: 100 })), Layer.provide(EventRepository.layer))
      const layer = AuthRequestsLive.layer(AuthRequestsLive.defaultConfig).pipe(
        Layer.provideMerge(pausingEvents),
        Layer.provideMerge(StoreLive.layerMemory)
      )
      yield* Effect.gen(function* () {
        const service = yield* AuthRequests
        const request = yield* service.create(registration("mkey-cancel"), operator)
        yield* service.createUser({ name: "alice" })
        const states = yield* Effect.forkChild(
          Stream.runCollect(Stream.map(service.watch(request.auth_id), (r) => r.state))
        )
        const registering = yield* Effect.forkChild(service.register(request.auth_id, "alice", "api-key:admin"))
        yield* Deferred.await(committed)
        // The cancel arrives while the change is committed but not yet told: it is delivered before the pause ends.
        yield* Effect.sync(() => registering.interruptUnsafe())
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.await(registering)
        assert.strictEqual((yield* service.get(request.auth_id)).state, "registered")
        const seen = yield* Fiber.join(states).pipe(
          Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.succeed(["timed out"]) })
        )
        assert.deepStrictEqual(seen, ["pending", "registered"])
      }).pipe(Effect.provide(layer))
    })
  )
})
