import {
  type AuthRequestFilter,
  type AuthRequestKind,
  type AuthRequestState,
  authIdPrefix,
  authIdRandomLength,
  instantMillisOf,
  instantRequirement,
  isPageSize,
  pageSizeRequirement
} from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { formatNode, formatRequest, print } from "./AuthOutput.js"
import { untilCtrlC } from "./Following.js"
import { connect, grpcFlags } from "./GrpcConnection.js"
import { reconnectingWatch, withoutRepeats } from "./GrpcReconnecting.js"
import { reconnectFlag } from "./Reconnecting.js"
import { failWith } from "./ServerConfig.js"

const authId = Flag.String("auth-id").pipe(Flag.withDescription("The request's id (ghreq_...)"))

const register = Command.make(
  "register",
  { ...grpcFlags, authId, user: Flag.String("user").pipe(Flag.withDescription("The user the machine joins as")) },
  Effect.fn("gatehouse.auth.register")(function* (flags) {
    const { client, reportCallErrors } = yield* connect(flags)
    const node = yield* reportCallErrors(client.register(flags.authId, flags.user))
    yield* print(flags.json, node, (n) => `registered node ${formatNode(n).trim()}`)
  }, Effect.scoped)
).pipe(Command.withDescription("Bind a pending registration to a user: creates (or re-authorises) its node"))

const verdict = (name: "approve" | "reject") =>
  Command.make(
    name,
    { ...grpcFlags, authId },
    Effect.fn(`gatehouse.auth.${name}`)(function* (flags) {
      const { client, reportCallErrors } = yield* connect(flags)
      yield* reportCallErrors(name === "approve" ? client.approve(flags.authId) : client.reject(flags.authId))
      const request = yield* reportCallErrors(client.get(flags.authId))
      yield* print(flags.json, request, formatRequest)
    }, Effect.scoped)
  ).pipe(Command.withDescription(name === "approve" ? "Approve a pending request" : "Reject a pending request"))

const states = [
  "pending",
  "approved",
  "rejected",
  "expired",
  "registered"
] as const satisfies ReadonlyArray<AuthRequestState>
const kinds = ["registration", "ssh_check"] as const satisfies ReadonlyArray<AuthRequestKind>

const authIdForm = new RegExp(`^${authIdPrefix}[A-Za-z0-9_-]{${authIdRandomLength}}$`)

// What the server would refuse of these flags, said with the flags' own names (its words name the API's fields:
// `page_size`, `page_token`), before anything is sent.
const listFlagProblems = (flags: {
  readonly limit: Option.Option<number>
  readonly before: Option.Option<string>
  readonly decidedAfter: Option.Option<string>
}): ReadonlyArray<string> => [
  ...(Option.isSome(flags.limit) && !isPageSize(flags.limit.value)
    ? [`gatehouse: --limit: ${pageSizeRequirement}`]
    : []),
  ...(Option.isSome(flags.before) && !authIdForm.test(flags.before.value)
    ? [`gatehouse: --before: must be an auth id (${authIdPrefix}…), the last of the page before`]
    : []),
  ...(Option.isSome(flags.decidedAfter) && instantMillisOf(flags.decidedAfter.value) === undefined
    ? [`gatehouse: --decided-after: ${instantRequirement}`]
    : [])
]

const text = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)

const list = Command.make(
  "list",
  {
    ...grpcFlags,
    state: Flag.Literals("state", states).pipe(Flag.withDescription("Only requests in this state"), Flag.optional),
    kind: Flag.Literals("kind", kinds).pipe(Flag.withDescription("Only requests of this kind"), Flag.optional),
    src: text("src", "Only ssh_check requests from this source address"),
    dst: text("dst", "Only ssh_check requests to this destination"),
    localUser: text("local-user", "Only ssh_check requests for this local user"),
    decidedAfter: text("decided-after", "Only requests decided after this RFC 3339 time (2026-01-02T03:04:05Z)"),
    limit: Flag.Int("limit").pipe(Flag.withDescription("Requests per page, 1–1000 (default 1000)"), Flag.optional),
    before: text("before", "Start after this request (the last auth_id of the page before)"),
    all: Flag.Boolean("all").pipe(Flag.withDescription("Follow every page to the end"), Flag.withDefault(false))
  },
  Effect.fn("gatehouse.auth.list")(function* (flags) {
    const refused = listFlagProblems(flags)
    if (refused.length > 0) return yield* failWith(refused)
    const { client, reportCallErrors } = yield* connect(flags)
    const filter: AuthRequestFilter = {
      state: Option.getOrUndefined(flags.state),
      kind: Option.getOrUndefined(flags.kind),
      src: Option.getOrUndefined(flags.src),
      dst: Option.getOrUndefined(flags.dst),
      local_user: Option.getOrUndefined(flags.localUser),
      decided_after: Option.getOrUndefined(flags.decidedAfter),
      limit: Option.getOrUndefined(flags.limit),
      before: Option.getOrUndefined(flags.before)
    }
    if (flags.all && flags.json) {
      return yield* print(true, yield* reportCallErrors(Stream.runCollect(client.listAll(filter))), () => [])
    }
    if (flags.all) {
      // Printed as the pages arrive: the whole history need not fit in memory.
      const printed = yield* reportCallErrors(
        client.listAll(filter).pipe(
          Stream.tap((request) => Console.log(formatRequest(request))),
          Stream.runCount
        )
      )
      if (printed === 0) yield* Console.log("no auth requests")
      return
    }
    const page = yield* reportCallErrors(client.listPage(filter))
    const requests = page.auth_requests
    yield* print(flags.json, requests, (all) => (all.length === 0 ? ["no auth requests"] : all.map(formatRequest)))
    const last = requests.at(-1)
    if (page.next_page_token !== "" && last !== undefined) {
      yield* Console.error(`more requests follow: add --before ${last.auth_id} for the next page, or --all`)
    }
  }, Effect.scoped)
).pipe(
  Command.withDescription(
    "List auth requests, newest first (pending ones and the decided history), a page at a time (--all: every page)"
  )
)

const watch = Command.make(
  "watch",
  {
    ...grpcFlags,
    id: Argument.String("auth-id").pipe(Argument.withDescription("The request's id (ghreq_...)")),
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.auth.watch")(function* (flags) {
    const { client, reportCallErrors } = yield* connect(flags)
    // The server's heartbeats (the pending state again) are not printed, with or without reconnecting.
    const states = flags.reconnect
      ? reconnectingWatch(() => client.watch(flags.id))
      : withoutRepeats(client.watch(flags.id))
    yield* reportCallErrors(
      states.pipe(
        Stream.runForEach((request) =>
          flags.json ? Console.log(JSON.stringify(request)) : Console.log(formatRequest(request))
        ),
        untilCtrlC
      )
    )
  }, Effect.scoped)
).pipe(Command.withDescription("Print a request's state, then each change, until it is decided or expires"))

/** `gatehouse auth ...`: interactive auth requests over the gRPC API. */
export const authCommand = Command.make("auth").pipe(
  Command.withDescription("Auth requests: approve, reject, register, list and watch (over gRPC)"),
  Command.withSubcommands([verdict("approve"), verdict("reject"), register, list, watch])
)
