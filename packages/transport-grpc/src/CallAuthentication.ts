import type { Principal } from "@gatehouse-edge/core/domain"
import { Unauthenticated } from "@gatehouse-edge/core/domain"
import { Authentication } from "@gatehouse-edge/core/services"
import type * as grpc from "@grpc/grpc-js"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

/** Who may call: the TCP listener checks an API key; the unix socket trusts its file mode. */
export type CallAuthenticator = (metadata: grpc.Metadata) => Effect.Effect<Principal, Unauthenticated, Authentication>

const BEARER = /^Bearer ([^\s]+)$/i

/** `authorization: Bearer <api key>` metadata, judged by the core `Authentication` service (as HTTP requests are). */
export const bearerAuthenticator: CallAuthenticator = (metadata) => {
  const header = metadata.get("authorization")[0]
  const match = typeof header === "string" ? BEARER.exec(header) : null
  if (match === null) {
    return Effect.fail(new Unauthenticated({ message: "missing API key: send authorization: Bearer <key> metadata" }))
  }
  const key = Redacted.make(match[1]!)
  // Every call on the TCP listener: chained, not a generator (see Authentication.authenticate).
  return Authentication.use((authentication) => authentication.authenticate({ _tag: "ApiKey", key }))
}

/** The principal of a call on the local unix socket: whoever can open it (mode 0770) is trusted. */
export const unixSocketPrincipal: Principal = {
  method: "unix_socket",
  subject: "unix-socket",
  roles: ["admin"],
  scopes: ["admin"]
}

export const unixSocketAuthenticator: CallAuthenticator = () => Effect.succeed(unixSocketPrincipal)
