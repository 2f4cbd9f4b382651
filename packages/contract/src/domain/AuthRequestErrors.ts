import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"
import { AuthRequestKind, AuthRequestState } from "./AuthRequest.js"

/** No auth request has this id (404 / NOT_FOUND). */
export class AuthRequestNotFound extends ApiError<AuthRequestNotFound>()("AuthRequestNotFound", {
  code: "not_found",
  fields: { auth_id: Schema.String },
  message: (e) => `auth request ${e.auth_id} not found`
}) {}

/** The request's time ran out before anyone decided (409 / FAILED_PRECONDITION). */
export class AuthRequestExpired extends ApiError<AuthRequestExpired>()("AuthRequestExpired", {
  code: "failed_precondition",
  fields: { auth_id: Schema.String },
  message: () => "auth request expired"
}) {}

/** The request was decided otherwise already: the first verdict is final (409 / FAILED_PRECONDITION). */
export class AuthRequestAlreadyDecided extends ApiError<AuthRequestAlreadyDecided>()("AuthRequestAlreadyDecided", {
  code: "failed_precondition",
  fields: { auth_id: Schema.String, state: AuthRequestState },
  message: (e) => `auth request already ${e.state}`
}) {}

/** An operation that only applies to one kind of request, asked of the other (409 / FAILED_PRECONDITION). */
export class AuthRequestWrongKind extends ApiError<AuthRequestWrongKind>()("AuthRequestWrongKind", {
  code: "failed_precondition",
  fields: { auth_id: Schema.String, kind: AuthRequestKind, expected: AuthRequestKind },
  message: (e) => `auth request ${e.auth_id} is a ${e.kind} request, not a ${e.expected} request`
}) {}

/** No user has this name (404 / NOT_FOUND). */
export class UserNotFound extends ApiError<UserNotFound>()("UserNotFound", {
  code: "not_found",
  fields: { name: Schema.String },
  message: (e) => `user "${e.name}" not found`
}) {}

/** A user with this name exists already (409 / ALREADY_EXISTS). */
export class UserAlreadyExists extends ApiError<UserAlreadyExists>()("UserAlreadyExists", {
  code: "already_exists",
  fields: { name: Schema.String },
  message: (e) => `user "${e.name}" already exists`
}) {}

/** Every address of a configured prefix is handed out (409 / FAILED_PRECONDITION). */
export class AddressPoolExhausted extends ApiError<AddressPoolExhausted>()("AddressPoolExhausted", {
  code: "failed_precondition",
  fields: { prefix: Schema.String },
  message: (e) => `no free address left in ${e.prefix}`
}) {}
