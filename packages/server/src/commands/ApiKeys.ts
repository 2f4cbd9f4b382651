import type { ApiKeyInfo } from "@gatehouse-edge/core"
import { parseGoDuration } from "@gatehouse-edge/core/config"
import { NewApiKey, parseScopeList } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { print } from "./AuthOutput.js"
import { httpFlags, withClient } from "./HttpConnection.js"
import { failWith } from "./ServerConfig.js"

/** `30d`, `12h`, `90m`, ... in seconds, or `undefined`. */
const durationSeconds = (text: string): number | undefined => {
  const days = /^(\d+)d$/.exec(text.trim())
  const ms = days !== null ? Number(days[1]) * 86_400_000 : parseGoDuration(text)
  return ms === undefined || ms <= 0 ? undefined : Math.round(ms / 1000)
}

/** The lifetimes the server accepts, in seconds: the bounds of `expires_in_s` in the API's contract. */
const lifetimeBounds = () => {
  const { schema } = Schema.toJsonSchemaDocument(NewApiKey.fields.expires_in_s.schema)
  return schema as { readonly minimum: number; readonly maximum: number }
}

/** Seconds in the largest unit of `--expires` that divides them: `1m`, `3660d`. */
const formatSeconds = (seconds: number) => {
  const units = [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60]
  ] as const
  const [unit, size] = units.find(([, size]) => seconds % size === 0) ?? ["s", 1]
  return `${seconds / size}${unit}`
}

const formatKey = (key: ApiKeyInfo) => {
  const state =
    key.revoked_at !== null
      ? `revoked ${key.revoked_at}`
      : key.expires_at !== null
        ? `expires ${key.expires_at}`
        : "no expiry"
  return `${key.name.padEnd(20)}  gh_${key.prefix}_…  ${key.scopes.join(",").padEnd(30)}  ${state}  last used ${key.last_used_at ?? "never"}`
}

const create = Command.make(
  "create",
  {
    ...httpFlags,
    name: Flag.String("name").pipe(Flag.withDescription("A name for the key: 1–63 of a-z 0-9 . _ -")),
    scope: Flag.String("scope").pipe(
      Flag.withDescription(
        "What it may do, comma-separated: <area>:read or <area>:write (control = write) for routes, files, health, " +
          "events, hypervisor, docker, certs, auth_requests, users; auth_requests:create (create ssh_check " +
          "requests and read requests, never decide: the SSH gate's key); or admin (default: admin)"
      ),
      Flag.withDefault("admin")
    ),
    expires: Flag.String("expires").pipe(
      Flag.withDescription("Lifetime, e.g. 30d, 12h (default: never expires)"),
      Flag.optional
    )
  },
  Effect.fn("gatehouse.apikey.create")(function* (flags) {
    const scopes = parseScopeList(flags.scope)
    if ("errors" in scopes) return yield* failWith(scopes.errors.map((error) => `gatehouse: --scope: ${error}`))
    const expires = Option.map(flags.expires, (text) => ({ text, seconds: durationSeconds(text) }))
    if (Option.isSome(expires) && expires.value.seconds === undefined) {
      return yield* failWith([`gatehouse: --expires: "${expires.value.text}" is not a duration such as 30d or 12h`])
    }
    // Checked here too, in the flag's words: the server's refusal would name its field (expires_in_s).
    if (Option.isSome(expires)) {
      const { minimum, maximum } = lifetimeBounds()
      const seconds = expires.value.seconds!
      if (seconds < minimum || seconds > maximum) {
        return yield* failWith([
          `gatehouse: --expires: must be from ${formatSeconds(minimum)} to ${formatSeconds(maximum)}`
        ])
      }
    }
    const created = yield* withClient(flags, (client) =>
      client.access.createApiKey({
        payload: {
          name: flags.name,
          scopes: scopes.scopes,
          ...(Option.isSome(expires) ? { expires_in_s: expires.value.seconds! } : {})
        }
      })
    )
    if (flags.json) return yield* Console.log(JSON.stringify(created, null, 2))
    yield* Console.log(created.key)
    yield* Console.error(
      `created API key "${created.api_key.name}" (${created.api_key.scopes.join(", ")}` +
        `${created.api_key.expires_at === null ? "" : `, expires ${created.api_key.expires_at}`}): ` +
        "the key above is shown once and cannot be shown again"
    )
  })
).pipe(Command.withDescription("Create an API key for a script and print it (once)"))

const list = Command.make(
  "list",
  httpFlags,
  Effect.fn("gatehouse.apikey.list")(function* (flags) {
    const keys = yield* withClient(flags, (client) => client.access.listApiKeys())
    yield* print(flags.json, keys, (all) => (all.length === 0 ? ["no API keys"] : all.map(formatKey)))
  })
).pipe(Command.withDescription("List API keys (never the keys themselves)"))

const revoke = Command.make(
  "revoke",
  { ...httpFlags, name: Argument.String("name").pipe(Argument.withDescription("The key's name")) },
  Effect.fn("gatehouse.apikey.revoke")(function* (flags) {
    const key = yield* withClient(flags, (client) => client.access.revokeApiKey({ params: { name: flags.name } }))
    yield* print(flags.json, key, (k) => `revoked API key "${k.name}" (gh_${k.prefix}_…)`)
  })
).pipe(Command.withDescription("Revoke an API key: refused from the next request on (HTTP and gRPC)"))

/** `gatehouse apikey ...` (over HTTP, with an admin key). */
export const apiKeyCommand = Command.make("apikey").pipe(
  Command.withDescription("API keys for scripts: create, list, revoke (over HTTP)"),
  Command.withSubcommands([create, list, revoke])
)
