import type {
  ApiKeyExists,
  ApiKeyInfo,
  ApiKeyNotFound,
  CreatedApiKey,
  NewApiKey
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** API keys for scripts and the gRPC API: created with scopes and an optional expiry, listed, revoked. */
export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    /** A new key; the key itself is in the result only (it is stored hashed). `by` is who asked, for the event. */
    readonly create: (request: NewApiKey, by: string) => Effect.Effect<CreatedApiKey, ApiKeyExists>
    /** Every key, revoked and expired ones included, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<ApiKeyInfo>>
    /** Revokes the active key of that name: refused from the next request on, on HTTP and gRPC. */
    readonly revoke: (name: string, by: string) => Effect.Effect<ApiKeyInfo, ApiKeyNotFound>
  }
>()("@gatehouse-edge/core/ApiKeys") {}
