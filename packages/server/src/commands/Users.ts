import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { formatNode, formatUser, print } from "./AuthOutput.js"
import { connect, grpcFlags } from "./GrpcConnection.js"

const create = Command.make(
  "create",
  {
    ...grpcFlags,
    name: Argument.String("name").pipe(Argument.withDescription("[a-z0-9][a-z0-9._-]{0,62}")),
    displayName: Flag.String("display-name").pipe(
      Flag.withDescription("The user's name as people read it (one line, up to 255 characters)"),
      Flag.optional
    ),
    email: Flag.String("email").pipe(Flag.withDescription("The user's email address"), Flag.optional)
  },
  Effect.fn("gatehouse.users.create")(function* (flags) {
    const { client, reportCallErrors } = yield* connect(flags)
    const user = yield* reportCallErrors(
      client.createUser({
        name: flags.name,
        display_name: Option.getOrUndefined(flags.displayName),
        email: Option.getOrUndefined(flags.email)
      })
    )
    yield* print(flags.json, user, (u) => `created user ${formatUser(u).trim()}`)
  }, Effect.scoped)
).pipe(Command.withDescription("Create a user that machines can be registered to"))

const listUsers = Command.make(
  "list",
  grpcFlags,
  Effect.fn("gatehouse.users.list")(function* (flags) {
    const { client, reportCallErrors } = yield* connect(flags)
    const users = yield* reportCallErrors(client.listUsers)
    yield* print(flags.json, users, (all) => (all.length === 0 ? ["no users"] : all.map(formatUser)))
  }, Effect.scoped)
).pipe(Command.withDescription("List users"))

/** `gatehouse users ...` (over gRPC). */
export const usersCommand = Command.make("users").pipe(
  Command.withDescription("Users that machines register to (over gRPC)"),
  Command.withSubcommands([create, listUsers])
)

const listNodes = Command.make(
  "list",
  { ...grpcFlags, user: Flag.String("user").pipe(Flag.withDescription("Only this user's nodes"), Flag.optional) },
  Effect.fn("gatehouse.nodes.list")(function* (flags) {
    const { client, reportCallErrors } = yield* connect(flags)
    const nodes = yield* reportCallErrors(client.listNodes(Option.getOrUndefined(flags.user)))
    yield* print(flags.json, nodes, (all) => (all.length === 0 ? ["no nodes"] : all.map(formatNode)))
  }, Effect.scoped)
).pipe(Command.withDescription("List registered nodes and their addresses"))

/** `gatehouse nodes ...` (over gRPC). */
export const nodesCommand = Command.make("nodes").pipe(
  Command.withDescription("Registered nodes (over gRPC)"),
  Command.withSubcommands([listNodes])
)
