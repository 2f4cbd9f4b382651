import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"
import type { ErrorBody } from "./ErrorBody.js"
import { type ErrorCode, httpStatusOf } from "./ErrorCode.js"

/**
 * How an error travels in an error body's `details`. The default puts the error's own fields in one entry
 * `{"reason": "<Tag>", ...fields}`; errors that carry a list of issues put the issues there instead.
 */
export interface DetailsCodec {
  readonly toDetails: (fields: Record<string, unknown>) => ReadonlyArray<unknown> | undefined
  readonly fromDetails: (
    details: ReadonlyArray<unknown> | undefined,
    message: string
  ) => Record<string, unknown> | undefined
}

/** Static description every Gatehouse error class carries: its tag, machine code and how it renders. */
export interface ApiErrorStatics {
  readonly tag: string
  readonly code: ErrorCode
  readonly describe: (fields: Record<string, unknown>) => string
  readonly details: DetailsCodec
}

const reasonOf = (detail: unknown): unknown =>
  typeof detail === "object" && detail !== null ? (detail as { reason?: unknown }).reason : undefined

const reasonDetails = (tag: string, hasFields: boolean): DetailsCodec => ({
  toDetails: (fields) => {
    if (!hasFields) return undefined
    const { _tag: _, ...rest } = fields
    return [{ reason: tag, ...rest }]
  },
  fromDetails: (details) => {
    // An error without fields sends no details, so it is known by its code alone. But an endpoint may declare
    // errors of the same code (503: no cluster configured, or the cluster unreachable): a body that names another
    // error in its details is that one's, never this one's.
    if (!hasFields) {
      const namesAnother = details?.some((d) => {
        const reason = reasonOf(d)
        return typeof reason === "string" && reason !== tag
      })
      return namesAnother === true ? undefined : {}
    }
    const entry = details?.find((d): d is Record<string, unknown> => reasonOf(d) === tag)
    if (entry === undefined) return undefined
    const { reason: _, ...fields } = entry
    return fields
  }
})

/**
 * Defines a Gatehouse error: a `Schema.TaggedError` with structured fields whose machine code (and so its HTTP
 * status and gRPC code, see {@link ErrorCodes}) is fixed once here.
 *
 * ```ts
 * class RouteNotFound extends ApiError<RouteNotFound>()("RouteNotFound", {
 *   code: "not_found", fields: { alias: Schema.String }, message: (e) => `route "${e.alias}" not found`
 * }) {}
 * ```
 */
export const ApiError =
  <Self = never>() =>
  <const Tag extends string, const Fields extends Schema.Struct.Fields>(
    tag: Tag,
    options: {
      readonly code: ErrorCode
      readonly fields: Fields
      readonly message: (fields: Schema.Struct.Type<Fields>) => string
      readonly details?: DetailsCodec
    }
  ) => {
    if ("reason" in options.fields && options.details === undefined) {
      // `reason` names the error in its body's details; a field of that name would overwrite it.
      throw new Error(`${tag}: an error field may not be called "reason"`)
    }
    const Base = Schema.TaggedError<Self>()(tag, options.fields, {
      identifier: tag,
      httpApiStatus: httpStatusOf(options.code)
    })
    const describe = options.message as (fields: Record<string, unknown>) => string
    if (!("message" in options.fields)) {
      Object.defineProperty((Base as unknown as { prototype: object }).prototype, "message", {
        get(this: Record<string, unknown>) {
          return describe(this)
        },
        configurable: true
      })
    }
    const statics: ApiErrorStatics = {
      tag,
      code: options.code,
      describe,
      details:
        options.details ??
        reasonDetails(
          tag,
          Object.keys(options.fields).some((k) => k !== "message")
        )
    }
    return Object.assign(Base, { apiError: statics })
  }

/**
 * The message `error`'s wire body carries (`error.message` of the JSON body, of a gRPC status): for an error made by
 * {@link ApiError} its description, which for one with a `message` field says more than that field alone (e.g.
 * `OpenID provider <issuer>: <message>`); for anything else its own message.
 */
export const wireMessageOf = (error: Error): string => {
  const statics = (error.constructor as { readonly apiError?: ApiErrorStatics }).apiError
  return statics === undefined ? error.message : statics.describe(error as unknown as Record<string, unknown>)
}

/** Any class made by {@link ApiError}. */
export type ApiErrorClass = Schema.Top & {
  readonly apiError: ApiErrorStatics
  readonly Encoded: { readonly _tag: string }
}

const wireBody = (code: ErrorCode) =>
  Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(code),
      message: Schema.String,
      details: Schema.optionalKey(Schema.Array(Schema.Unknown)),
      request_id: Schema.optionalKey(Schema.String)
    })
  })

/**
 * The wire form of an error class: the shared {@link ErrorBody} shape on the outside, the typed error on the
 * inside, annotated with the HTTP status of its code. HTTP endpoints declare their errors through this, so the
 * server renders `{"error": {...}}` and the generated client decodes it back into the typed error.
 */
export const toWireError = <C extends ApiErrorClass>(cls: C) => {
  // One schema per class, so every endpoint shares it (and the OpenAPI document names it once).
  const cached = wireCache.get(cls)
  if (cached !== undefined) return cached as ReturnType<typeof makeWireError<C>>
  const made = makeWireError(cls)
  wireCache.set(cls, made)
  return made
}

const wireCache = new WeakMap<ApiErrorClass, Schema.Top>()

/**
 * The `details` of an error's wire body (what its HTTP body carries as `error.details`), for a transport that renders
 * errors itself (gRPC); undefined when the error has none or is not one made by {@link ApiError}.
 */
export const wireDetailsOf = (error: unknown): ReadonlyArray<unknown> | undefined => {
  const cls = (error as { readonly constructor?: Partial<ApiErrorClass> } | null)?.constructor
  if (cls?.apiError === undefined) return undefined
  const body = Schema.encodeUnknownOption(toWireError(cls as ApiErrorClass) as Schema.Codec<unknown, ErrorBody>)(error)
  return Option.getOrUndefined(body)?.error.details
}

const makeWireError = <C extends ApiErrorClass>(cls: C) => {
  const { tag, code, describe, details } = cls.apiError
  const body = wireBody(code)
  return body
    .pipe(
      Schema.decodeTo(
        cls as unknown as Schema.Codec<C["Type"], C["Encoded"]>,
        SchemaTransformation.transformEffect<C["Encoded"], typeof body.Type>({
          decode: (wire, options) => {
            const fields = details.fromDetails(wire.error.details, wire.error.message)
            return fields === undefined
              ? Effect.fail(new SchemaIssue.InvalidValue({ message: `not a ${tag}` }, wire, options))
              : Effect.succeed({ message: wire.error.message, ...fields, _tag: tag } as unknown as C["Encoded"])
          },
          encode: (encoded) => {
            const fields = encoded as unknown as Record<string, unknown>
            const detailList = details.toDetails(fields)
            return Effect.succeed({
              error: {
                code,
                message: describe(fields),
                ...(detailList === undefined ? {} : { details: detailList })
              }
            } as typeof body.Type)
          }
        })
      )
    )
    .annotate({ httpApiStatus: httpStatusOf(code), description: `${tag} (${code})` })
}
