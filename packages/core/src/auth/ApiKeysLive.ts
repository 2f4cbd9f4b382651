import { randomUUID } from "node:crypto"
import type { ApiKeyInfo, NewApiKey } from "@gatehouse-edge/contract/domain"
import { ApiKeyCreatedEvent, ApiKeyExists, ApiKeyNotFound, ApiKeyRevokedEvent } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Events } from "../events/Events.js"
import { ApiKeyConflict, ApiKeyRepository, type StoredApiKey } from "./ApiKeyRepository.js"
import { ApiKeys } from "./ApiKeys.js"
import { Authentication } from "./Authentication.js"
import { generateUnusedApiKey } from "./UnusedApiKey.js"

const iso = (ms: number) => DateTime.formatIso(DateTime.makeUnsafe(ms))

/** What a listing shows of a stored key: never its hash. */
export const apiKeyInfoOf = (key: StoredApiKey): ApiKeyInfo => ({
  name: key.name,
  prefix: key.prefix,
  scopes: key.scopes,
  created_at: key.created_at,
  expires_at: key.expires_at,
  last_used_at: key.last_used_at,
  revoked_at: key.revoked_at
})

/** {@link ApiKeys} on the stored keys; creating and revoking are events (`api_key/created|revoked`). */
export const layer: Layer.Layer<ApiKeys, never, ApiKeyRepository | Authentication | Events> = Layer.effect(
  ApiKeys,
  Effect.gen(function* () {
    const repository = yield* ApiKeyRepository
    const authentication = yield* Authentication
    const events = yield* Events

    return ApiKeys.of({
      create: Effect.fn("ApiKeys.create")(function* (request: NewApiKey, by: string) {
        const now = yield* Clock.currentTimeMillis
        const { key, prefix, sha256 } = yield* generateUnusedApiKey(repository)
        const stored: StoredApiKey = {
          id: randomUUID(),
          name: request.name,
          prefix,
          sha256,
          roles: [],
          scopes: request.scopes,
          created_at: iso(now),
          expires_at: request.expires_in_s === undefined ? null : iso(now + request.expires_in_s * 1000),
          last_used_at: null,
          revoked_at: null
        }
        // The key and its event commit together: no key is created unrecorded.
        yield* events.transaction(
          repository.insert(stored).pipe(
            Effect.catchIf(
              (error): error is ApiKeyConflict => error instanceof ApiKeyConflict,
              () => Effect.fail(new ApiKeyExists({ name: request.name }))
            ),
            Effect.as({
              value: undefined,
              events: [ApiKeyCreatedEvent.make({ name: request.name, prefix, scopes: request.scopes, by })]
            })
          )
        )
        return { key, api_key: apiKeyInfoOf(stored) }
      }),
      list: Effect.map(repository.list, (keys) => keys.map(apiKeyInfoOf)).pipe(Effect.withSpan("ApiKeys.list")),
      revoke: Effect.fn("ApiKeys.revoke")(function* (name: string, by: string) {
        const at = iso(yield* Clock.currentTimeMillis)
        // Refused from the next request on, and the streams opened with it end. After the commit: a verification
        // reading the row before this is not remembered by the key cache, and one reading it after sees the revocation.
        // The commit and the telling are one step: a request interrupted between them (its client gone) would leave
        // the key's streams open, and the retried revocation finds nothing left to revoke. The key revoked, and
        // told of, is the one the update found: of two revocations at once, one revokes and the other finds none.
        const revoked = yield* Effect.uninterruptible(
          Effect.tap(
            events.transaction(
              Effect.flatMap(repository.revoke(name, at), (found) =>
                Option.isNone(found)
                  ? Effect.fail(new ApiKeyNotFound({ name }))
                  : Effect.succeed({ value: found.value, events: [ApiKeyRevokedEvent.make({ name, by })] })
              )
            ),
            (key) => authentication.keyRevoked(key.prefix)
          )
        )
        return apiKeyInfoOf(revoked)
      })
    })
  })
)
