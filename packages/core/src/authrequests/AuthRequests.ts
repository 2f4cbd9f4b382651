import type {
  AddressPoolExhausted,
  AuthRequest,
  AuthRequestAlreadyDecided,
  AuthRequestExpired,
  AuthRequestFilter,
  AuthRequestNotFound,
  AuthRequestPage,
  AuthRequestWrongKind,
  InvalidArgument,
  NewAuthRequest,
  NewUser,
  Node,
  Principal,
  RateLimited,
  User,
  UserAlreadyExists,
  UserNotFound
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"

/** What deciding a request can fail with. */
export type VerdictError =
  | InvalidArgument
  | AuthRequestNotFound
  | AuthRequestExpired
  | AuthRequestAlreadyDecided
  | AuthRequestWrongKind

/**
 * Interactive auth requests (SPEC §12): a machine asks to join (`registration`) or the SSH gate holds a login
 * (`ssh_check`); an operator approves, rejects, or binds a registration to a user; the first verdict is final and
 * stored. Ids are checked here (`ghreq_` + 24 URL-safe characters), so every transport rejects the same input the
 * same way. `decidedBy` is the caller's principal subject: transports take it from authentication, never from a
 * request body. The real layer is `AuthRequestsLive.layer` (durable, on the store).
 */
export class AuthRequests extends Context.Service<
  AuthRequests,
  {
    /**
     * Creates a pending request; past the pending cap, the oldest pending request expires to make room. `creator` is
     * the caller's principal (transports take it from authentication): a credential that may create but not decide
     * has an allowance of creates (`RateLimited` past it, see `AuthRequestCreateLimit`), whichever transport it uses.
     */
    readonly create: (
      input: NewAuthRequest,
      creator: Principal
    ) => Effect.Effect<AuthRequest, InvalidArgument | RateLimited>
    readonly get: (authId: string) => Effect.Effect<AuthRequest, InvalidArgument | AuthRequestNotFound>
    /**
     * One page of the requests matching the filter, newest first: pending ones and the decided history within the
     * retention. At most `limit` (default and maximum 1000: a larger one is refused, so a client never takes a
     * short page for the last); after the request `before` names (a cursor), which must exist. Filters and
     * cursor are applied in the store, so a page costs the same however long the history.
     */
    readonly list: (filter: AuthRequestFilter) => Effect.Effect<ReadonlyArray<AuthRequest>, InvalidArgument>
    /** {@link list}'s page and the cursor of the next one (absent after the last page). */
    readonly listPage: (filter: AuthRequestFilter) => Effect.Effect<AuthRequestPage, InvalidArgument>
    /** pending → approved. Approving an approved request again succeeds; any other final state fails. */
    readonly approve: (authId: string, decidedBy: string) => Effect.Effect<AuthRequest, VerdictError>
    /** pending → rejected. Rejecting a rejected request again succeeds; any other final state fails. */
    readonly reject: (authId: string, decidedBy: string) => Effect.Effect<AuthRequest, VerdictError>
    /**
     * Binds a pending registration to `user`: creates its node, or re-authorises the node with the same machine
     * key (same id and addresses), and wakes the waiting machine (state → registered).
     */
    readonly register: (
      authId: string,
      user: string,
      decidedBy: string
    ) => Effect.Effect<Node, VerdictError | UserNotFound | AddressPoolExhausted>
    /**
     * The request's current state, then each change; ends after a final state. Watching a decided request gives
     * its stored verdict at once, so a waiter that reconnects (even after a restart) never misses it.
     */
    readonly watch: (authId: string) => Stream.Stream<AuthRequest, InvalidArgument | AuthRequestNotFound>
    readonly createUser: (user: NewUser) => Effect.Effect<User, InvalidArgument | UserAlreadyExists>
    /** Every user, oldest first. */
    readonly listUsers: Effect.Effect<ReadonlyArray<User>>
    /** Nodes, oldest first; of one user when `user` is given. */
    readonly listNodes: (user?: string) => Effect.Effect<ReadonlyArray<Node>, InvalidArgument | UserNotFound>
  }
>()("@gatehouse-edge/core/AuthRequests") {}
