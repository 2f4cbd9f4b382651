import { EventId, FileType } from "@gatehouse-edge/core/domain"
import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"

/** `limit` of list endpoints: 1–1000. */
export const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })).annotate({
  description: "Number of items, 1–1000"
})

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
  since: Schema.optionalKey(EventId),
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
