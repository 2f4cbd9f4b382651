import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { EventId, FileType } from "../domain/index.js"

/**
 * A whole number written in decimal digits, as a query parameter: `1e3`, `+5`, `5.0` or ` 5` are refused rather
 * than read loosely as numbers.
 */
const DecimalInteger = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,15}$/, { message: "expected a whole number written in decimal digits" })
).pipe(
  Schema.decodeTo(
    Schema.Int,
    SchemaTransformation.transform({ decode: (text) => Number(text), encode: (n: number) => String(n) })
  )
)

/** A Proxmox VE node name as it appears in a path or query (PVE's own rule: letters, digits, inner `-`). */
export const NodeParam = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/, { message: "expected a node name" })
).annotate({ description: "Proxmox VE node name" })

/** A guest id (`vmid`): a whole number ≥ 0 written in decimal digits; 0 means the node itself. */
export const VmidParam = DecimalInteger.pipe(
  Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 999_999_999 })))
).annotate({ description: "Guest id (vmid); 0 = the node itself" })

/** A yes/no query flag: `true`/`false` or `1`/`0`. */
export const BooleanParam = Schema.Literals(["true", "false", "1", "0"]).pipe(
  Schema.decodeTo(
    Schema.Boolean,
    SchemaTransformation.transform({
      decode: (text: "true" | "false" | "1" | "0") => text === "true" || text === "1",
      encode: (value: boolean): "true" | "false" | "1" | "0" => (value ? "true" : "false")
    })
  )
)

/** A container reference in a path: an id, an id prefix or a name (checked by the service, 400 when malformed). */
export const ContainerParam = Schema.String.annotate({ description: "Container id, unique id prefix, or name" })

/** `limit` of list endpoints: 1–1000. */
export const Limit = DecimalInteger.pipe(
  Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })))
).annotate({
  description: "Number of items, 1–1000"
})

/** `offset` of paged list endpoints: how many items to skip, a whole number ≥ 0. */
export const Offset = DecimalInteger.pipe(
  Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000 })))
).annotate({
  description: "Number of items to skip, ≥ 0"
})

/** An event id in a query: a UUIDv7, accepted in either case (UUIDs are case-insensitive) and read lower-cased. */
export const EventIdParam = Schema.String.check(
  Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i, {
    message: "expected an event id (a UUIDv7)"
  })
).pipe(
  Schema.decodeTo(
    EventId,
    SchemaTransformation.transform({ decode: (id) => id.toLowerCase(), encode: (id: string) => id })
  )
)

/** A route alias as it appears in a path. */
export const AliasParam = Schema.String.check(
  Schema.isPattern(/^(\*\.)?[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/, {
    message:
      "expected a route alias: lowercase letters, digits, '.' and '-', starting and ending with a letter or digit, " +
      "at most 253 characters, optionally after '*.'"
  })
).annotate({
  description: "Route alias"
})

/** An event category such as `config` or `health`. */
export const CategoryParam = Schema.String.check(
  Schema.isPattern(/^[a-z0-9_]{1,64}$/, {
    message: "expected an event category: 1 to 64 lowercase letters, digits or '_' (such as config or health)"
  })
)

/** Query of `GET /events`. */
export const EventsQuery = {
  since: Schema.optionalKey(EventIdParam),
  limit: Schema.optionalKey(Limit),
  category: Schema.optionalKey(CategoryParam)
}

/** Query selecting one editable file. The name is checked for traversal by the file service. */
export const FileQuery = {
  type: FileType,
  filename: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))
}

// RFC 9110 §8.8.3 and §13.1.1: `*`, or a comma-separated list of entity tags, each `"…"` or weak `W/"…"`.
const ENTITY_TAG = String.raw`(?:W/)?"[\x21\x23-\x7e\x80-\xff]*"`
const ENTITY_TAGS = new RegExp(String.raw`^\s*(?:\*|${ENTITY_TAG}(?:\s*,\s*${ENTITY_TAG})*)\s*$`)

/** `If-Match` / `If-None-Match`: `*` or entity tags; a malformed one is a 400, never a write without its condition. */
export const EntityTagsHeader = Schema.String.check(
  Schema.isPattern(ENTITY_TAGS, { message: 'expected * or a comma-separated list of entity tags such as "…"' })
)

/**
 * The conditions a file write may carry, both optional (see the file write endpoint). Not the endpoint's declared
 * `headers`: the client derived from the contract would then need a `headers` object on every write, conditional
 * or not. The server decodes them with this schema; OpenAPI lists them as the endpoint's header parameters.
 */
export const FileWriteHeaders = Schema.Struct({
  "if-match": Schema.optionalKey(
    EntityTagsHeader.annotate({
      description: "Write only if the file is at this version (the `ETag` of a read); `*`: only if it exists"
    })
  ),
  "if-none-match": Schema.optionalKey(
    EntityTagsHeader.annotate({ description: "`*`: write only if the file does not exist yet (create it)" })
  )
})
export type FileWriteHeaders = typeof FileWriteHeaders.Type

/** A YAML document in a request body, sent as `application/yaml` or `text/plain`. */
export const YamlBody = [
  Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/yaml" })),
  Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain" }))
] as const

/** A YAML document in a response body, always `application/yaml` (never JSON). */
export const YamlText = Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/yaml" }))
