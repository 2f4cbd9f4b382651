import { EventId, FileType } from "@gatehouse-edge/core/domain"
import { Schema, SchemaTransformation } from "effect"
import { HttpApiSchema } from "effect/http-api"

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

/** `limit` of list endpoints: 1–1000. */
export const Limit = DecimalInteger.pipe(
  Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })))
).annotate({
  description: "Number of items, 1–1000"
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
  Schema.isPattern(/^(\*\.)?[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/)
).annotate({
  description: "Route alias"
})

/** An event category such as `config` or `health`. */
export const CategoryParam = Schema.String.check(Schema.isPattern(/^[a-z0-9_]{1,64}$/))

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

/** A YAML document in a request body, sent as `application/yaml` or `text/plain`. */
export const YamlBody = [
  Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/yaml" })),
  Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain" }))
] as const

/** A YAML document in a response body, always `application/yaml` (never JSON). */
export const YamlText = Schema.String.pipe(HttpApiSchema.asText({ contentType: "application/yaml" }))
