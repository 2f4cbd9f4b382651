import type { SessionInfo } from "@gatehouse-edge/core/domain"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { print } from "./AuthOutput.js"
import { httpFlags, withClient } from "./HttpConnection.js"

const formatSession = (s: SessionInfo) =>
  `${s.id}  ${s.subject.padEnd(24)}  ${s.roles.join(",").padEnd(8)}  from ${s.address}  since ${s.created_at}  expires ${s.expires_at}`

const list = Command.make(
  "list",
  httpFlags,
  Effect.fn("gatehouse.sessions.list")(function* (flags) {
    const sessions = yield* withClient(flags, (client) => client.access.listSessions())
    yield* print(flags.json, sessions, (all) => (all.length === 0 ? ["no active sessions"] : all.map(formatSession)))
  })
).pipe(Command.withDescription("List active browser sessions"))

const revoke = Command.make(
  "revoke",
  { ...httpFlags, id: Argument.String("id").pipe(Argument.withDescription("The session's id (s_...)")) },
  Effect.fn("gatehouse.sessions.revoke")(function* (flags) {
    const session = yield* withClient(flags, (client) => client.access.revokeSession({ params: { id: flags.id } }))
    yield* print(flags.json, session, (s) => `revoked session ${s.id} of ${s.subject}`)
  })
).pipe(Command.withDescription("Revoke a browser session: its cookie stops working at once"))

/** `gatehouse sessions ...` (over HTTP, with an admin key). */
export const sessionsCommand = Command.make("sessions").pipe(
  Command.withDescription("Signed-in browser sessions: list, revoke (over HTTP)"),
  Command.withSubcommands([list, revoke])
)
