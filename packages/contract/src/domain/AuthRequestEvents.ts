import * as Schema from "effect/Schema"
import { AuthRequestKind } from "./AuthRequest.js"
import { defineEvent } from "./EventKind.js"

const Change = Schema.Struct({
  auth_id: Schema.String,
  kind: AuthRequestKind,
  decided_by: Schema.optionalKey(Schema.String),
  user: Schema.optionalKey(Schema.String)
})

/** `auth_request/created`. */
export const AuthRequestCreatedEvent = defineEvent("auth_request", "created", {
  level: "info",
  identifier: "AuthRequestCreatedEvent",
  description: "an auth request is waiting for a verdict",
  data: Change
})

/** `auth_request/approved`. */
export const AuthRequestApprovedEvent = defineEvent("auth_request", "approved", {
  level: "info",
  identifier: "AuthRequestApprovedEvent",
  description: "an operator approved an auth request",
  data: Change
})

/** `auth_request/rejected`. */
export const AuthRequestRejectedEvent = defineEvent("auth_request", "rejected", {
  level: "info",
  identifier: "AuthRequestRejectedEvent",
  description: "an operator rejected an auth request",
  data: Change
})

/** `auth_request/registered`: a registration was bound to a user and its node created or re-authorised. */
export const AuthRequestRegisteredEvent = defineEvent("auth_request", "registered", {
  level: "info",
  identifier: "AuthRequestRegisteredEvent",
  description: "a registration was bound to a user; its node was created or re-authorised",
  data: Schema.Struct({
    auth_id: Schema.String,
    kind: AuthRequestKind,
    decided_by: Schema.String,
    user: Schema.String,
    node_id: Schema.Int,
    ip_addresses: Schema.Array(Schema.String),
    reauthorised: Schema.Boolean
  })
})

/** `auth_request/expired`: its TTL ran out, or newer requests pushed it past the pending cap. */
export const AuthRequestExpiredEvent = defineEvent("auth_request", "expired", {
  level: "info",
  identifier: "AuthRequestExpiredEvent",
  description: "an auth request expired undecided (its TTL ran out, or the pending cap was reached)",
  data: Schema.Struct({
    auth_id: Schema.String,
    kind: AuthRequestKind,
    reason: Schema.Literals(["ttl", "pending_cap"])
  })
})

/** `user/created`. */
export const UserCreatedEvent = defineEvent("user", "created", {
  level: "info",
  identifier: "UserCreatedEvent",
  description: "a user was created",
  data: Schema.Struct({ name: Schema.String, id: Schema.Int })
})

/** Constructors of the `auth_request` and `user` events. */
export const AuthRequestEvents = {
  created: AuthRequestCreatedEvent.make,
  approved: AuthRequestApprovedEvent.make,
  rejected: AuthRequestRejectedEvent.make,
  registered: AuthRequestRegisteredEvent.make,
  expired: AuthRequestExpiredEvent.make,
  userCreated: UserCreatedEvent.make
} as const
