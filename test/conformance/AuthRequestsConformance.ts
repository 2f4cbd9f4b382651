import { assert, it } from "@effect/vitest"
import type { AuthRequest, AuthRequestFilter, ErrorCode, NewAuthRequest, Node, User } from "@gatehouse-edge/core/domain"
import { Effect, Fiber, type Scope, Stream } from "effect"

/** How an operation failed, as every binding must report it: the machine code and the message. */
export interface Failure {
  readonly code: ErrorCode
  readonly message: string
}

/**
 * One way to reach the auth-request service: the core service called directly, the HTTP binding through the typed
 * client, or the gRPC binding through the gRPC client. Each adapter turns its errors into a {@link Failure}.
 */
export interface AuthRequestsBinding {
  /** The `decided_by` the binding's caller is recorded as. */
  readonly principal: string
  readonly create: (input: NewAuthRequest) => Effect.Effect<AuthRequest, Failure>
  readonly get: (authId: string) => Effect.Effect<AuthRequest, Failure>
  readonly list: (filter: AuthRequestFilter) => Effect.Effect<ReadonlyArray<AuthRequest>, Failure>
  readonly approve: (authId: string) => Effect.Effect<void, Failure>
  readonly reject: (authId: string) => Effect.Effect<void, Failure>
  readonly register: (authId: string, user: string) => Effect.Effect<Node, Failure>
  readonly watch: (authId: string) => Stream.Stream<AuthRequest, Failure>
  readonly createUser: (name: string) => Effect.Effect<User, Failure>
  readonly listNodes: (user: string) => Effect.Effect<ReadonlyArray<Node>, Failure>
}

const failure = <A>(effect: Effect.Effect<A, Failure>) => Effect.flip(effect)

let counter = 0
const unique = (prefix: string) => `${prefix}${++counter}`

const sshCheck = (dst = "db1"): NewAuthRequest => ({
  kind: "ssh_check",
  ssh_check: { src: "127.0.0.1", dst, local_user: "root" }
})
const registration = (machine: string): NewAuthRequest => ({
  kind: "registration",
  registration: { machine_key: machine, node_key: `nk-${machine}`, hostname: "laptop" }
})

const inPrefix4 = /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.\d+\.\d+$/
const inPrefix6 = /^fd7a:115c:a1e0:/

/**
 * Registers the conformance cases for one binding. Every binding must pass them identically: same states, same
 * error codes, same messages. Each case opens its own service (a fresh store), on the wall clock: the expiry case
 * opens it with a 1 s TTL and waits for it, polling with a deadline.
 */
export const authRequestsConformance = (
  open: (options: { readonly ttlMs: number }) => Effect.Effect<AuthRequestsBinding, unknown, Scope.Scope>
) => {
  const run = (name: string, body: (b: AuthRequestsBinding) => Effect.Effect<void, unknown>, ttlMs = 15 * 60_000) =>
    it.live(name, () => Effect.scoped(Effect.flatMap(open({ ttlMs }), body)), 60_000)

  run("create, get, list with filters, approve: the verdict records the caller", (b) =>
    Effect.gen(function* () {
      const created = yield* b.create(sshCheck("conformance-list"))
      assert.match(created.auth_id, /^ghreq_[A-Za-z0-9_-]{24}$/)
      assert.strictEqual(created.state, "pending")
      assert.deepStrictEqual(yield* b.get(created.auth_id), created)
      const pending = yield* b.list({ state: "pending", kind: "ssh_check" })
      assert.isTrue(pending.some((r) => r.auth_id === created.auth_id))
      assert.isFalse((yield* b.list({ kind: "registration" })).some((r) => r.auth_id === created.auth_id))
      yield* b.approve(created.auth_id)
      const approved = yield* b.get(created.auth_id)
      assert.strictEqual(approved.state, "approved")
      assert.strictEqual(approved.decided_by, b.principal)
      assert.isString(approved.decided_at)
      assert.isFalse((yield* b.list({ state: "pending" })).some((r) => r.auth_id === created.auth_id))
      assert.isTrue((yield* b.list({ state: "approved" })).some((r) => r.auth_id === created.auth_id))
    })
  )

  run("list pages (limit, before) in the list's order, with the ssh_check filters; a bad cursor is refused", (b) =>
    Effect.gen(function* () {
      const src = "10.20.30.40"
      const created: Array<string> = []
      for (let i = 0; i < 5; i++) {
        created.push(
          (yield* b.create({ kind: "ssh_check", ssh_check: { src, dst: `h${i % 2}`, local_user: "u" } })).auth_id
        )
      }
      yield* b.create(sshCheck())
      const ids = (filter: AuthRequestFilter) => Effect.map(b.list(filter), (list) => list.map((r) => r.auth_id))
      // On the wall clock requests may share a millisecond; the whole list's order (auth_id breaks ties) is the
      // reference, and the pages must be that list cut in order.
      const whole = yield* ids({ src })
      assert.sameMembers(whole, created)
      const pages: Array<ReadonlyArray<string>> = []
      for (let before: string | undefined; pages.length === 0 || before !== undefined; ) {
        const page = yield* ids({ src, limit: 2, ...(before === undefined ? {} : { before }) })
        pages.push(page)
        before = page.length === 2 ? page.at(-1) : undefined
      }
      assert.deepStrictEqual(pages, [whole.slice(0, 2), whole.slice(2, 4), whole.slice(4)])
      assert.sameMembers(yield* ids({ src, dst: "h1", local_user: "u" }), [created[1], created[3]])
      assert.deepStrictEqual(yield* ids({ src, local_user: "nobody" }), [])
      yield* b.approve(created[2]!)
      const decidedAt = Date.parse((yield* b.get(created[2]!)).decided_at!)
      const approvedSince = (ms: number) =>
        ids({ state: "approved", kind: "ssh_check", src, decided_after: new Date(ms).toISOString(), limit: 1 })
      assert.deepStrictEqual(yield* approvedSince(decidedAt - 1), [created[2]])
      assert.deepStrictEqual(yield* approvedSince(decidedAt), [])
      // Over gRPC the cursor travels as a page token, and the refusal names that field: the code is the same.
      for (const before of ["nope", `ghreq_${"u".repeat(24)}`]) {
        assert.strictEqual((yield* failure(b.list({ before }))).code, "invalid_argument", before)
      }
    })
  )

  run("the first verdict is final; the same one again is fine", (b) =>
    Effect.gen(function* () {
      const a = yield* b.create(sshCheck())
      yield* b.approve(a.auth_id)
      yield* b.approve(a.auth_id)
      assert.deepStrictEqual(yield* failure(b.reject(a.auth_id)), {
        code: "failed_precondition",
        message: "auth request already approved"
      })
      const r = yield* b.create(sshCheck())
      yield* b.reject(r.auth_id)
      yield* b.reject(r.auth_id)
      assert.deepStrictEqual(yield* failure(b.approve(r.auth_id)), {
        code: "failed_precondition",
        message: "auth request already rejected"
      })
    })
  )

  run("malformed ids are invalid_argument on every operation; unknown ids not_found", (b) =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["ghreq_short", "auth_id: auth_id must be ghreq_ followed by 24 characters"],
        [`ghreq_${"a".repeat(25)}`, "auth_id: auth_id must be ghreq_ followed by 24 characters"],
        ["nope", "auth_id: auth_id must start with ghreq_"],
        [`ghreq_${"a".repeat(23)}*`, "auth_id: auth_id may only contain A-Z a-z 0-9 - _ after its prefix"]
      ]
      for (const [authId, message] of cases) {
        for (const operation of [b.approve(authId), b.reject(authId), b.register(authId, "alice"), b.get(authId)]) {
          assert.deepStrictEqual(yield* failure(operation as Effect.Effect<unknown, Failure>), {
            code: "invalid_argument",
            message
          })
        }
      }
      const unknown = `ghreq_${"u".repeat(24)}`
      assert.deepStrictEqual(yield* failure(b.approve(unknown)), {
        code: "not_found",
        message: `auth request ${unknown} not found`
      })
      assert.deepStrictEqual(yield* failure(b.get(unknown)), {
        code: "not_found",
        message: `auth request ${unknown} not found`
      })
    })
  )

  run("register: users, addresses, re-authorisation, the wrong kind", (b) =>
    Effect.gen(function* () {
      const name = unique("u")
      const machine = unique("m")
      const first = yield* b.create(registration(machine))
      assert.deepStrictEqual(yield* failure(b.register(first.auth_id, "")), {
        code: "invalid_argument",
        message: "user: user is required"
      })
      assert.deepStrictEqual(yield* failure(b.register(first.auth_id, name)), {
        code: "not_found",
        message: `user "${name}" not found`
      })
      const user = yield* b.createUser(name)
      assert.strictEqual(user.name, name)
      assert.deepStrictEqual(yield* failure(b.createUser(name)), {
        code: "already_exists",
        message: `user "${name}" already exists`
      })
      assert.strictEqual((yield* failure(b.createUser("Not Valid"))).code, "invalid_argument")
      const node = yield* b.register(first.auth_id, name)
      assert.strictEqual(node.ip_addresses.length, 2)
      assert.match(node.ip_addresses[0]!, inPrefix4)
      assert.match(node.ip_addresses[1]!, inPrefix6)
      assert.strictEqual(node.user.name, name)
      const registered = yield* b.get(first.auth_id)
      assert.strictEqual(registered.state, "registered")
      assert.strictEqual(registered.node?.id, node.id)
      const again = yield* b.create(registration(machine))
      const same = yield* b.register(again.auth_id, name)
      assert.strictEqual(same.id, node.id)
      assert.deepStrictEqual(same.ip_addresses, node.ip_addresses)
      assert.deepStrictEqual(
        (yield* b.listNodes(name)).map((n) => n.id),
        [node.id]
      )
      const check = yield* b.create(sshCheck())
      assert.deepStrictEqual(yield* failure(b.register(check.auth_id, name)), {
        code: "failed_precondition",
        message: `auth request ${check.auth_id} is a ssh_check request, not a registration request`
      })
      assert.strictEqual((yield* b.get(check.auth_id)).state, "pending")
    })
  )

  run("watch: the current state first, then the verdict, then the end; later, the stored verdict at once", (b) =>
    Effect.gen(function* () {
      const { auth_id } = yield* b.create(sshCheck())
      const collected: Array<string> = []
      const watching = yield* Effect.forkChild(
        b.watch(auth_id).pipe(
          Stream.runForEach((r) => Effect.sync(() => collected.push(r.state))),
          Effect.as(collected)
        )
      )
      // The verdict only once the watcher has the current state: otherwise it would see the verdict alone.
      while (collected.length === 0) yield* Effect.sleep("5 millis")
      yield* b.approve(auth_id)
      assert.deepStrictEqual(yield* Fiber.join(watching), ["pending", "approved"])
      const later = yield* b.watch(auth_id).pipe(Stream.runCollect)
      assert.deepStrictEqual(
        later.map((r) => r.state),
        ["approved"]
      )
      assert.strictEqual((yield* failure(b.watch(`ghreq_${"w".repeat(24)}`).pipe(Stream.runDrain))).code, "not_found")
    })
  )

  run(
    "a request expires after its TTL (1 s here) and then refuses verdicts",
    (b) =>
      Effect.gen(function* () {
        const { auth_id } = yield* b.create(sshCheck())
        const deadline = Date.now() + 10_000
        let state = "pending"
        while (state === "pending" && Date.now() < deadline) {
          yield* Effect.sleep("50 millis")
          state = (yield* b.get(auth_id)).state
        }
        assert.strictEqual(state, "expired")
        assert.deepStrictEqual(yield* failure(b.approve(auth_id)), {
          code: "failed_precondition",
          message: "auth request expired"
        })
      }),
    1_000
  )
}
