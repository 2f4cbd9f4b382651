import { formatIssue, InvalidYaml, ValidationFailed, type ValidationIssue } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import { failWith } from "./ServerConfig.js"
import { plural } from "./Table.js"

/**
 * A validation's refusal, kept as a value out of `withClient` (which would print its message alone, "validation
 * failed: 2 problems"), so each problem is printed on its own line with where it is.
 */
export interface Refused {
  readonly refused: ValidationFailed | InvalidYaml
}

/** `call` with a validation's refusal as its value ({@link Refused}) instead of its failure. */
export const keepRefusal = <A, E>(
  call: Effect.Effect<A, E>
): Effect.Effect<A | Refused, Exclude<E, Refused["refused"]>> =>
  call.pipe(
    Effect.catchIf(
      (error): error is Extract<E, Refused["refused"]> =>
        error instanceof ValidationFailed || error instanceof InvalidYaml,
      (error) => Effect.succeed<Refused>({ refused: error })
    )
  ) as Effect.Effect<A | Refused, Exclude<E, Refused["refused"]>>

export const isRefused = (value: unknown): value is Refused =>
  typeof value === "object" && value !== null && "refused" in value

/**
 * What was refused and each problem on its own line, located in `file` when the server's issue names no file (a
 * validation of content, which has no name on the server).
 */
export const refusalLines = (
  { refused }: Refused,
  options: { readonly nothingWritten: boolean; readonly file?: string | undefined }
): ReadonlyArray<string> => [
  `gatehouse: ${refused instanceof InvalidYaml ? "invalid YAML" : "validation failed"}: ` +
    `${plural(refused.issues.length, "problem")}${options.nothingWritten ? "; nothing was written" : ""}`,
  ...refused.issues.map(
    (issue: ValidationIssue) =>
      `  ${formatIssue(issue.file === undefined && options.file !== undefined ? { ...issue, file: options.file } : issue)}`
  )
]

/** Fails the command (exit 1) with the {@link refusalLines}. */
export const failRefused = (
  refused: Refused,
  options: { readonly nothingWritten: boolean; readonly file?: string | undefined }
) => failWith(refusalLines(refused, options))
