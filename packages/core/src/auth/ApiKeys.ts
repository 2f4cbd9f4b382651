import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { Context, Effect, Layer } from "effect"
import type { Principal } from "../domain/Principal.js"

/** A stored API key: never the key itself, only its prefix (to find it) and the SHA-256 of the whole key. */
export interface ApiKeyRecord {
  readonly name: string
  readonly prefix: string
  readonly sha256: string
}

const KEY_FORMAT = /^gh_([a-z0-9]{8})_([A-Za-z0-9_-]{32,64})$/

const sha256 = (text: string) => createHash("sha256").update(text).digest()

/**
 * Creates a new API key `gh_<prefix>_<secret>` (8-character prefix, 256-bit secret) and the record to store.
 * The key has full entropy, so a fast hash is enough to store it: there is nothing to brute-force.
 */
export const generateApiKey = (name: string): { readonly key: string; readonly record: ApiKeyRecord } => {
  const prefix = randomBytes(5).toString("hex").slice(0, 8)
  const key = `gh_${prefix}_${randomBytes(32).toString("base64url").slice(0, 43)}`
  return { key, record: apiKeyRecord(name, key) }
}

/** The record of an existing key (e.g. one read back from `admin.key`). Throws on a malformed key. */
export const apiKeyRecord = (name: string, key: string): ApiKeyRecord => {
  const match = KEY_FORMAT.exec(key)
  if (match === null) throw new Error(`malformed API key for "${name}": expected gh_<prefix>_<secret>`)
  return { name, prefix: match[1]!, sha256: sha256(key).toString("hex") }
}

const principalOf = (record: ApiKeyRecord): Principal => ({
  method: "api_key",
  subject: `api-key:${record.name}`,
  roles: ["admin"]
})

/** Verifies API keys presented as bearer tokens. */
export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    /** The principal of a valid key, `undefined` otherwise. Runs in constant time for keys with a known prefix. */
    readonly verify: (token: string) => Effect.Effect<Principal | undefined>
  }
>()("@gatehouse-edge/core/ApiKeys") {
  /** Keys from a fixed list of records. */
  static readonly layer = (records: ReadonlyArray<ApiKeyRecord>) => {
    // Looked up on every request: index by prefix and decode the hashes once.
    const byPrefix = new Map(
      records.map((r) => [r.prefix, { hash: Buffer.from(r.sha256, "hex"), principal: principalOf(r) }] as const)
    )
    return Layer.succeed(ApiKeys)(
      ApiKeys.of({
        verify: (token) =>
          Effect.sync(() => {
            const match = KEY_FORMAT.exec(token)
            const known = match === null ? undefined : byPrefix.get(match[1]!)
            if (known === undefined) return undefined
            return timingSafeEqual(sha256(token), known.hash) ? known.principal : undefined
          })
      })
    )
  }
}
