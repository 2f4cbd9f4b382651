import * as Redacted from "effect/Redacted"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import { didYouMean } from "./DidYouMean.js"
import { boundedInput, InputPreview } from "./InputPreview.js"
import type { IssueAnchor, IssuePath } from "./IssueCollector.js"
import { containsSecretKey, isSecretPath } from "./SecretKeys.js"

/** One problem found by a schema, relative to the decoded value, ready to be located and reported. */
export interface SchemaProblem {
  readonly path: IssuePath
  readonly message: string
  readonly anchor: IssueAnchor
}

const standardFormatter = SchemaIssue.makeFormatterStandardSchemaV1()

const segment = (key: PropertyKey): string | number => (typeof key === "symbol" ? String(key) : key)

// Stands in for a secret input: Effect's formatter and `show` print it as `<redacted>`.
const hidden = Redacted.make("")

const show = (value: unknown): string =>
  Redacted.isRedacted(value) || value instanceof InputPreview
    ? String(value)
    : typeof value === "string"
      ? `\`${value}\``
      : (JSON.stringify(value) ?? "?")

/**
 * The issue tree with every input under a secret key (or holding one) replaced by {@link hidden}, so no message
 * built from it can quote a secret: `secret: 12345678-SECRET` that fails a check reads `got <redacted>`; and every
 * input too long to quote by a preview of it ({@link boundedInput}). The input is the only place Effect's messages
 * take values from; our own schemas for secrets use no custom message that embeds it.
 */
const quotable = (issue: SchemaIssue.Issue, path: IssuePath): SchemaIssue.Issue => {
  const changes: Record<string, unknown> = {}
  if (SchemaIssue.hasInput(issue)) {
    // Bounded first: a long input is quoted as a preview (secret values left out of it), and only a short one is
    // walked for secret keys (an input may be a large part of the document, once per issue).
    const bounded = isSecretPath(path) ? hidden : boundedInput(issue.input)
    if (bounded !== issue.input) changes.input = bounded
    else if (containsSecretKey(issue.input)) changes.input = hidden
  }
  switch (issue._tag) {
    case "Pointer": {
      const inner = quotable(issue.issue, [...path, ...issue.path.map(segment)])
      if (inner !== issue.issue) changes.issue = inner
      break
    }
    case "Filter":
    case "Encoding": {
      const inner = quotable(issue.issue, path)
      if (inner !== issue.issue) changes.issue = inner
      break
    }
    case "Composite":
    case "AnyOf": {
      const inner = issue.issues.map((i) => quotable(i, path))
      if (inner.some((i, n) => i !== issue.issues[n])) changes.issues = inner
      break
    }
  }
  return Object.keys(changes).length === 0
    ? issue
    : (Object.assign(Object.create(Object.getPrototypeOf(issue)), issue, changes) as SchemaIssue.Issue)
}

// Effect writes "Expected string, got 1"; our own messages, like compiler diagnostics, start in lower case.
const lowerFirst = (message: string): string =>
  /^(Expected|Missing|Invalid|Unexpected) /.test(message) ? message[0]!.toLowerCase() + message.slice(1) : message

const literalChoices = (ast: SchemaAST.AST): ReadonlyArray<string> | undefined => {
  if (!SchemaAST.isUnion(ast)) return undefined
  const choices: Array<string> = []
  for (const member of ast.types) {
    if (!SchemaAST.isLiteral(member) || typeof member.literal !== "string") return undefined
    choices.push(member.literal)
  }
  return choices
}

const unknownKey = (key: string, ast: SchemaAST.AST): string => {
  const known = SchemaAST.isObjects(ast) ? ast.propertySignatures.map((p) => String(p.name)) : []
  return `unknown key \`${key}\`${didYouMean(key, known)}`
}

/**
 * Flattens a schema issue tree into one problem per failure, with its path. On top of Effect's default
 * messages it names unknown keys with a "did you mean" hint taken from the struct's own keys, names missing
 * keys, and lists the allowed values of a literal union (again with a hint: `htp` → `http`).
 * Decode with `reportInput: true` so messages can quote the offending value; a value under a secret key
 * (`secret`, `password`, `client_secret`, `*_token`, ...) is shown as `<redacted>` instead.
 */
export const schemaProblems = (issue: SchemaIssue.Issue, path: IssuePath = []): Array<SchemaProblem> =>
  problemsOf(quotable(issue, path), path)

const problemsOf = (issue: SchemaIssue.Issue, path: IssuePath): Array<SchemaProblem> => {
  switch (issue._tag) {
    case "Pointer":
      return problemsOf(issue.issue, [...path, ...issue.path.map(segment)])
    case "Composite":
      return issue.issues.flatMap((inner) => problemsOf(inner, path))
    case "Encoding":
      return problemsOf(issue.issue, path)
    case "UnexpectedKey":
      return [{ path, message: unknownKey(String(path.at(-1) ?? ""), issue.ast), anchor: "key" }]
    case "MissingKey":
      return [{ path, message: `missing required key \`${String(path.at(-1) ?? "")}\``, anchor: "key" }]
    case "AnyOf": {
      if (issue.issues.length > 0) return issue.issues.flatMap((inner) => problemsOf(inner, path))
      const choices = literalChoices(issue.ast)
      if (choices !== undefined && "input" in issue) {
        const input = issue.input
        const hint = typeof input === "string" ? didYouMean(input, choices) : ""
        const message = `${show(input)} is not one of ${choices.map((c) => `\`${c}\``).join(", ")}${hint}`
        return [{ path, message, anchor: "value" }]
      }
      break
    }
  }
  return standardFormatter(issue).issues.map((problem) => ({
    path: [...path, ...(problem.path ?? []).map((p) => segment(typeof p === "object" ? p.key : p))],
    message: lowerFirst(problem.message),
    anchor: "value" as const
  }))
}
