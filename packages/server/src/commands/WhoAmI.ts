import type { Principal, VersionInfo } from "@gatehouse-edge/core/domain"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { print } from "./AuthOutput.js"
import { httpFlags, withClient } from "./HttpConnection.js"

/** What `whoami` shows: the caller as the server authenticated it, and the server's build. */
export interface WhoAmI {
  readonly principal: Principal
  readonly server: VersionInfo
}

/** The caller, its scopes, its key or session and when that expires, and the server it asked. */
export const formatWhoAmI = ({ principal, server }: WhoAmI): ReadonlyArray<string> => [
  `${principal.subject} (${principal.method})`,
  `roles:   ${principal.roles.length === 0 ? "none" : principal.roles.join(", ")}`,
  `scopes:  ${principal.scopes.length === 0 ? "none" : principal.scopes.join(", ")}`,
  ...(principal.api_key === undefined
    ? []
    : [`api key: gh_${principal.api_key.prefix}_…, expires ${principal.api_key.expires_at ?? "never"}`]),
  ...(principal.session === undefined
    ? []
    : [`session: ${principal.session.id}, expires ${principal.session.expires_at}`]),
  `server:  gatehouse ${server.version} (${server.commit})`
]

/** `gatehouse whoami`: which credential the CLI uses and what it may do, as the server sees it (over HTTP). */
export const whoAmICommand = Command.make(
  "whoami",
  httpFlags,
  Effect.fn("gatehouse.whoami")(function* (flags) {
    const found = yield* withClient(flags, (client) =>
      Effect.all({ principal: client.access.whoami(), server: client.system.version() }, { concurrency: 2 })
    )
    yield* print(flags.json, found, formatWhoAmI)
  })
).pipe(
  Command.withDescription("Who the server takes this CLI's key for: subject, roles, scopes, expiry; and its version")
)
