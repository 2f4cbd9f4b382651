import type { InvalidArgument } from "@gatehouse-edge/contract/domain"
import {
  AddressPoolExhausted,
  type AuthRequest,
  AuthRequestAlreadyDecided,
  AuthRequestEvents,
  AuthRequestExpired,
  type AuthRequestFilter,
  AuthRequestNotFound,
  AuthRequestWrongKind,
  authIdPrefix,
  isFinalState,
  type NewAuthRequest,
  type NewUser,
  type Principal,
  UserAlreadyExists,
  UserNotFound
} from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import type { AuthRequestsConfig } from "../config/ConfigSections.js"
import { ConfigDefaults } from "../config/GatehouseConfig.js"
import { Events } from "../events/Events.js"
import { randomBytesPooled } from "../util/RandomPool.js"
import { create as createChange, decide, eventOf, refusal, renderPlain } from "./AuthRequestChanges.js"
import { type CreateRatePolicy, defaultCreateRatePolicy, makeCreateLimit } from "./AuthRequestCreateLimit.js"
import { checkAuthId, checkNewAuthRequest, checkNewUser, checkUserName } from "./AuthRequestInput.js"
import { makeListPage } from "./AuthRequestListing.js"
import { givenNameFor, renderNode, renderRequest, renderUser } from "./AuthRequestRendering.js"
import { AuthRequestRepository, type NodeRecord, type RequestRecord, type UserRecord } from "./AuthRequestRepository.js"
import { AuthRequests, type VerdictError } from "./AuthRequests.js"
import { makeAuthRequestWaiters } from "./AuthRequestWaiters.js"
import { makeAuthRequestWriter } from "./AuthRequestWriter.js"
import { firstFreeAddress, parsePrefix } from "./IpPrefix.js"

/** The embedded defaults of `auth_requests` (SPEC §13). */
export const defaultConfig: AuthRequestsConfig = {
  ttlMs: ConfigDefaults.authRequestTtlMs,
  maxPending: ConfigDefaults.authRequestsMaxPending,
  retentionMs: ConfigDefaults.authRequestsRetentionMs,
  expiredRetentionMs: ConfigDefaults.authRequestsExpiredRetentionMs,
  expiredMax: ConfigDefaults.authRequestsExpiredMax,
  createPerSecond: ConfigDefaults.authRequestsCreatePerSecond,
  createBurst: ConfigDefaults.authRequestsCreateBurst,
  ipv4Prefix: ConfigDefaults.authRequestsIpv4Prefix,
  ipv6Prefix: ConfigDefaults.authRequestsIpv6Prefix
}

// The expiry sweeper wakes at least this often, so history past its retention is deleted without new requests.
const maxSweepInterval = Duration.hours(1)
// How soon a sweep the store failed is tried again.
const sweepRetry = Duration.seconds(5)
// How often a store shared with other servers is asked whether they settled a request waited on here.
const replicaCheckEvery = Duration.seconds(2)

/** A new auth id: the prefix and 18 random bytes as 24 base64url characters. */
export const newAuthId = (): string => `${authIdPrefix}${randomBytesPooled(18).toString("base64url")}`

/** How many watchers are waiting on requests right now: for tests and benchmarks that prove waiters are freed. */
export class AuthRequestWaiterCount extends Context.Service<
  AuthRequestWaiterCount,
  { readonly get: Effect.Effect<number> }
>()("@gatehouse-edge/core/AuthRequestWaiterCount") {}

/** The limits a server runs with, from `auth_requests` (a test may narrow them further). */
export interface AuthRequestsLimits {
  /** How fast a credential that may create but not decide may create (see `AuthRequestCreateLimit`). */
  readonly createRate: CreateRatePolicy
  /** How long a request that ended without a verdict is kept (see `AuthRequestUndecided`). */
  readonly undecidedRetentionMs: number
  /** The most such requests kept, the oldest deleted first. */
  readonly maxUndecidedKept: number
}

const limitsOf = (config: AuthRequestsConfig): AuthRequestsLimits => ({
  createRate: { ...defaultCreateRatePolicy, burst: config.createBurst, perSecond: config.createPerSecond },
  undecidedRetentionMs: config.expiredRetentionMs,
  maxUndecidedKept: config.expiredMax
})

const make = (config: AuthRequestsConfig, limits: AuthRequestsLimits) =>
  Effect.gen(function* () {
    const repository = yield* AuthRequestRepository
    const events = yield* Events
    const waiters = makeAuthRequestWaiters()
    const writer = yield* makeAuthRequestWriter(events, waiters)
    const wakeSweeper = yield* Queue.sliding<void>(1)
    // When the sweeper means to wake next: a new request expiring sooner wakes it. Infinity while it is awake
    // (or before its first plan), so a request committed meanwhile always wakes it again.
    let sweeperWakesAt = Number.POSITIVE_INFINITY
    // Requests created since the sweeper last trimmed the undecided ones: each may end without a verdict, and a
    // flood of them (each pushing an older one out past the pending cap) wakes it every hundredth of the bound.
    let createdSinceSweep = 0
    const trimEvery = Math.max(1, Math.floor(limits.maxUndecidedKept / 100))
    const createLimit = makeCreateLimit(limits.createRate)
    const ipv4 = parsePrefix(config.ipv4Prefix)
    const ipv6 = parsePrefix(config.ipv6Prefix)
    if (ipv4 === undefined || ipv6 === undefined) {
      return yield* Effect.die(new Error("auth_requests prefixes were not validated"))
    }

    const render = Effect.fn("AuthRequests.render")(function* (records: ReadonlyArray<RequestRecord>) {
      const nodes = yield* repository.nodesById(records.flatMap((r) => (r.node_id === null ? [] : [r.node_id])))
      const users = yield* repository.usersById([
        ...records.flatMap((r) => (r.user_id === null ? [] : [r.user_id])),
        ...[...nodes.values()].map((n) => n.user_id)
      ])
      return records.map((record) => renderRequest(record, users, nodes))
    })

    /** A rendered request: without a lookup when it has no user or node (all but registered ones). */
    const renderOne = (record: RequestRecord) =>
      record.user_id === null && record.node_id === null
        ? Effect.succeed(renderPlain(record))
        : render([record]).pipe(Effect.map((list) => list[0]!))

    const listPage = makeListPage(repository, render)

    const find = (authId: string) =>
      repository.findRequest(authId).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new AuthRequestNotFound({ auth_id: authId })),
            onSome: Effect.succeed
          })
        )
      )

    // create, approve and reject run on every request of a busy server (bench/auth-requests.ts): each is one
    // span around a change the writer commits with others, chained rather than generators.
    const verdict = (to: "approved" | "rejected") => {
      const name = `AuthRequests.${to === "approved" ? "approve" : "reject"}`
      return (authId: string, decidedBy: string) =>
        Effect.withSpan(
          Effect.flatMap(checkAuthId(authId), () => writer.submit(decide(repository, authId, to, decidedBy))),
          name,
          { captureStackTrace: false }
        )
    }

    const allocate = Effect.fn("AuthRequests.allocate")(function* (hostname: string) {
      const used = yield* repository.nodeNamesAndAddresses
      const v4 = firstFreeAddress(ipv4, used.ipv4)
      if (v4 === undefined) return yield* new AddressPoolExhausted({ prefix: ipv4.text })
      const v6 = firstFreeAddress(ipv6, used.ipv6)
      if (v6 === undefined) return yield* new AddressPoolExhausted({ prefix: ipv6.text })
      return { ipv4: v4, ipv6: v6, givenName: givenNameFor(hostname, new Set(used.givenNames)) }
    })

    const register = Effect.fn("AuthRequests.register")(function* (
      authId: string,
      userName: string,
      decidedBy: string
    ) {
      yield* checkAuthId(authId)
      yield* checkUserName(userName)
      // The node, the verdict and its event commit together; then its watchers are told, in the same
      // uninterruptible step: a client that cancels once the change is committed must not leave them waiting.
      const told = (outcome: { readonly changed: RequestRecord | undefined }) =>
        outcome.changed === undefined
          ? Effect.void
          : Effect.map(renderOne(outcome.changed), (request) => waiters.notify(request))
      const outcome = yield* events
        .transaction<
          { readonly changed: RequestRecord | undefined; readonly node: NodeRecord; readonly user: UserRecord },
          VerdictError | UserNotFound | AddressPoolExhausted,
          never
        >(
          Effect.gen(function* () {
            // Before anything is read: the user, the machine's node and the free addresses stay as read.
            yield* repository.lockDirectory
            const at = yield* Clock.currentTimeMillis
            const request = yield* find(authId)
            if (request.kind !== "registration") {
              return yield* new AuthRequestWrongKind({ auth_id: authId, kind: request.kind, expected: "registration" })
            }
            const user = yield* repository.findUser(userName).pipe(
              Effect.flatMap(
                Option.match({
                  onNone: () => Effect.fail(new UserNotFound({ name: userName })),
                  onSome: Effect.succeed
                })
              )
            )
            const refused = refusal(request, "registered", at)
            if (refused !== undefined) return yield* refused
            if (request.state === "registered") {
              // The same verdict again: fine if it names the same user, a conflicting one otherwise.
              if (request.user_id !== user.id || request.node_id === null) {
                return yield* new AuthRequestAlreadyDecided({ auth_id: authId, state: request.state })
              }
              const nodes = yield* repository.nodesById([request.node_id])
              return {
                value: { changed: undefined, node: nodes.get(request.node_id)!, user },
                events: []
              }
            }
            const existing = yield* repository.findNodeByMachineKey(request.machine_key ?? "")
            let node: NodeRecord
            if (Option.isSome(existing)) {
              node = {
                ...existing.value,
                node_key: request.node_key ?? "",
                hostname: request.hostname ?? "",
                user_id: user.id,
                register_method: "cli"
              }
              yield* repository.updateNode(node)
            } else {
              const addresses = yield* allocate(request.hostname ?? "")
              node = yield* repository.insertNode({
                machine_key: request.machine_key ?? "",
                node_key: request.node_key ?? "",
                disco_key: "",
                hostname: request.hostname ?? "",
                given_name: addresses.givenName,
                user_id: user.id,
                ipv4: addresses.ipv4,
                ipv6: addresses.ipv6,
                register_method: "cli",
                tags: "[]",
                created_at: at,
                expiry: null,
                last_seen: null
              })
            }
            const changed = yield* repository.decide({
              authId,
              to: "registered",
              at,
              by: decidedBy,
              userId: user.id,
              nodeId: node.id
            })
            if (Option.isNone(changed)) {
              // Decided by someone else between the read and the update: the node change rolls back with this.
              const current = yield* find(authId)
              return yield* refusal(current, "registered", at) ?? new AuthRequestExpired({ auth_id: authId })
            }
            return {
              value: { changed: changed.value, node, user },
              events: [
                AuthRequestEvents.registered({
                  auth_id: authId,
                  kind: "registration",
                  decided_by: decidedBy,
                  user: user.name,
                  node_id: node.id,
                  ip_addresses: [node.ipv4, node.ipv6].filter((a): a is string => a !== null),
                  reauthorised: Option.isSome(existing)
                })
              ]
            }
          })
        )
        .pipe(Effect.tap(told), Effect.uninterruptible)
      return renderNode(outcome.node, outcome.user)
    })

    const create = (input: NewAuthRequest, creator: Principal) =>
      Effect.withSpan(
        Effect.flatMap(Effect.andThen(createLimit.take(creator), checkNewAuthRequest(input)), () =>
          Effect.tap(writer.submit(createChange(repository, config, newAuthId(), input)), (created) =>
            Effect.sync(() => {
              createdSinceSweep += 1
              if (Date.parse(created.expires_at) < sweeperWakesAt || createdSinceSweep >= trimEvery) {
                Queue.offerUnsafe(wakeSweeper, undefined)
              }
            })
          )
        ),
        "AuthRequests.create",
        { captureStackTrace: false }
      )

    const watch = (authId: string): Stream.Stream<AuthRequest, AuthRequestNotFound | InvalidArgument> =>
      Stream.unwrap(
        Effect.gen(function* () {
          yield* checkAuthId(authId)
          // Listen before reading, so a change between the read and the first wait is never missed.
          const changes = yield* waiters.register(authId)
          const current = yield* renderOne(yield* find(authId))
          return Stream.concat(Stream.succeed(current), Stream.fromQueue(changes)).pipe(
            Stream.changesWith((a, b) => a.state === b.state),
            Stream.takeUntil((request) => isFinalState(request.state))
          )
        })
      ).pipe(Stream.withSpan("AuthRequests.watch"))

    const expireAndPrune = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const expired = yield* events.transaction(
        Effect.map(repository.expireDue(now), (changed) => {
          const requests = changed.map(renderPlain)
          return { value: requests, events: requests.map((request) => eventOf(request, "ttl")) }
        })
      )
      for (const request of expired) waiters.notify(request)
      yield* repository.deleteHistoryBefore(now - config.retentionMs)
      // Those that ended without a verdict go much sooner, and beyond a count: see `AuthRequestUndecided`.
      yield* repository.deleteExpiredBefore(now - limits.undecidedRetentionMs)
      yield* repository.deleteExpiredBeyond(limits.maxUndecidedKept)
      return now
    })
    // Expires what is due; how long until the next request is due or the oldest undecided one is to be deleted (at
    // most `maxSweepInterval`), and when that is.
    const expireDue = Effect.gen(function* () {
      const now = yield* expireAndPrune
      const nextExpiry = yield* repository.nextExpiry
      // Deleted once older than the retention (`decided_at < cutoff`): a millisecond after it is reached.
      const nextPurge = Option.map(yield* repository.oldestExpired, (at) => at + limits.undecidedRetentionMs + 1)
      const due = [nextExpiry, nextPurge].flatMap((at) => (Option.isSome(at) ? [at.value] : []))
      const wait =
        due.length === 0
          ? maxSweepInterval
          : Duration.min(Duration.millis(Math.max(0, Math.min(...due) - now)), maxSweepInterval)
      return { wait, at: now + Duration.toMillis(wait) }
    })
    // A store that fails once (a full disk, a lock held past its timeout) is a warning and another try soon: the
    // sweeper's fiber ending would leave every pending request, and its watchers, pending for good.
    const afterFailure = Effect.map(Clock.currentTimeMillis, (now) => ({
      wait: sweepRetry,
      at: now + Duration.toMillis(sweepRetry)
    }))
    const sweep = Effect.gen(function* () {
      sweeperWakesAt = Number.POSITIVE_INFINITY
      createdSinceSweep = 0
      const { wait, at } = yield* expireDue.pipe(
        Effect.catchDefect((defect) =>
          Effect.andThen(Effect.logWarning("expiring auth requests failed; trying again shortly", defect), afterFailure)
        )
      )
      sweeperWakesAt = at
      yield* Effect.raceFirst(Effect.sleep(wait), Queue.take(wakeSweeper))
    }).pipe(Effect.withSpan("AuthRequests.sweep"))
    // Requests whose time ran out while the server was down are marked before anyone can read them.
    yield* expireAndPrune
    yield* Effect.forkScoped(Effect.forever(sweep))

    // A store shared by several servers (PostgreSQL) is written by the others too: a verdict, or an expiry by their
    // sweeper, reaches the watchers waiting here only through the store. The requests waited on that it shows
    // settled are told to their watchers (`watch` drops a state a watcher has seen, and ends at a final one).
    const tellSettledElsewhere = Effect.gen(function* () {
      const watched = waiters.watched()
      if (watched.length === 0) return
      const settled = yield* repository.findSettled(watched)
      if (settled.length === 0) return
      for (const request of yield* render(settled)) waiters.notify(request)
    }).pipe(
      Effect.catchDefect((defect) => Effect.logWarning("reading auth requests settled by other servers failed", defect))
    )
    const sql = yield* SqlClient.SqlClient
    if (sql.onDialectOrElse({ pg: () => true, orElse: () => false })) {
      yield* Effect.forkScoped(Effect.forever(Effect.delay(tellSettledElsewhere, replicaCheckEvery)))
    }

    const service = AuthRequests.of({
      create,
      get: Effect.fn("AuthRequests.get")(function* (authId: string) {
        yield* checkAuthId(authId)
        return yield* renderOne(yield* find(authId))
      }),
      list: Effect.fn("AuthRequests.list")(function* (filter: AuthRequestFilter) {
        return (yield* listPage(filter)).auth_requests
      }),
      listPage,
      approve: verdict("approved"),
      reject: verdict("rejected"),
      register,
      watch,
      createUser: Effect.fn("AuthRequests.createUser")(function* (input: NewUser) {
        const user = yield* checkNewUser(input)
        const created = yield* events.transaction(
          Effect.gen(function* () {
            yield* repository.lockDirectory
            if (Option.isSome(yield* repository.findUser(user.name))) {
              return yield* new UserAlreadyExists({ name: user.name })
            }
            const inserted = yield* repository.insertUser({ ...user, created_at: yield* Clock.currentTimeMillis })
            return {
              value: inserted,
              events: [AuthRequestEvents.userCreated({ name: inserted.name, id: inserted.id })]
            }
          })
        )
        return renderUser(created)
      }),
      listUsers: repository.listUsers.pipe(
        Effect.map((users) => users.map(renderUser)),
        Effect.withSpan("AuthRequests.listUsers")
      ),
      listNodes: Effect.fn("AuthRequests.listNodes")(function* (userName?: string) {
        let userId: number | undefined
        if (userName !== undefined && userName !== "") {
          yield* checkUserName(userName)
          const user = yield* repository.findUser(userName)
          if (Option.isNone(user)) return yield* new UserNotFound({ name: userName })
          userId = user.value.id
        }
        const nodes = yield* repository.listNodes(userId)
        const users = yield* repository.usersById(nodes.map((n) => n.user_id))
        return nodes.map((node) => renderNode(node, users.get(node.user_id)!))
      })
    })
    return Context.make(AuthRequests, service).pipe(
      Context.add(AuthRequestWaiterCount, { get: Effect.sync(waiters.count) })
    )
  })

/** The durable auth-request service on the store, publishing to the shared event history. */
export const layer = (
  config: AuthRequestsConfig = defaultConfig,
  limits: Partial<AuthRequestsLimits> = {}
): Layer.Layer<AuthRequests | AuthRequestWaiterCount, never, SqlClient.SqlClient | Events> =>
  Layer.effectContext(make(config, { ...limitsOf(config), ...limits })).pipe(Layer.provide(AuthRequestRepository.layer))
