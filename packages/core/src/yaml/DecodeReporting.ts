import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type * as SchemaIssue from "effect/SchemaIssue"
import { didYouMean } from "./DidYouMean.js"
import type { IssueCollector, IssuePath } from "./IssueCollector.js"
import { schemaProblems } from "./SchemaProblems.js"

// Every problem, not the first; unknown keys are errors; messages may quote the offending value.
const parseOptions = { errors: "all", onExcessProperty: "error", reportInput: true } as const

type Decode = (input: unknown) => Result.Result<unknown, SchemaIssue.Issue>

// Building a decoder walks the schema; route validation decodes the same field schemas thousands of times.
const decoders = new WeakMap<object, Decode>()
const decoderOf = (schema: Schema.ConstraintDecoder<unknown>): Decode => {
  let decode = decoders.get(schema)
  if (decode === undefined) {
    const parse = Schema.decodeUnknownResult(schema as Schema.Decoder<unknown>, parseOptions)
    decode = (input) => Result.mapError(parse(input), (error) => error.issue)
    decoders.set(schema, decode)
  }
  return decode
}

/**
 * Decodes `input` with `schema`, reporting every problem to `issues` at `path` (relative to the collector):
 * unknown keys with a "did you mean" hint, missing keys, wrong types and failed checks, each located in the
 * source by the collector. Returns the decoded value, or `undefined` when there was any problem.
 */
export const decodeReporting = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  issues: IssueCollector,
  path: IssuePath = []
): S["Type"] | undefined => {
  const result = decoderOf(schema)(input)
  if (Result.isSuccess(result)) return result.success as S["Type"]
  for (const problem of schemaProblems(result.failure, path)) issues.add(problem.path, problem.message, problem.anchor)
  return undefined
}

/** What {@link decodeFields} could decode, and which fields it could not. */
export interface DecodedFields<Fields extends Schema.Struct.Fields> {
  readonly value: Partial<Schema.Struct.Type<Fields>>
  /** Fields that were present but invalid, or required but missing. */
  readonly failed: ReadonlySet<string>
}

/**
 * Decodes each field of a struct on its own, so one bad field does not hide the others: the caller gets every
 * field that decoded and can still run its cross-field rules, and reports stay complete. Keys the struct does
 * not declare are reported as unknown (with a hint), required keys that are absent as missing.
 */
export const decodeFields = <Fields extends Schema.Struct.Fields>(
  struct: Schema.Struct<Fields>,
  input: Readonly<Record<string, unknown>>,
  issues: IssueCollector,
  path: IssuePath = []
): DecodedFields<Fields> => {
  const fields = struct.fields as unknown as Record<string, Schema.Top>
  const value: Record<string, unknown> = {}
  const failed = new Set<string>()
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(fields, key)) {
      issues.add([...path, key], `unknown key \`${key}\`${didYouMean(key, Object.keys(fields))}`, "key")
    }
  }
  for (const [key, schema] of Object.entries(fields)) {
    if (!Object.hasOwn(input, key)) {
      if (!SchemaAST.isOptional(schema.ast)) {
        failed.add(key)
        issues.add([...path, key], `missing required key \`${key}\``, "key")
      }
      continue
    }
    const decoded = decodeReporting(schema as Schema.Decoder<unknown>, input[key], issues, [...path, key])
    if (decoded === undefined) failed.add(key)
    else value[key] = decoded
  }
  return { value: value as Partial<Schema.Struct.Type<Fields>>, failed }
}
