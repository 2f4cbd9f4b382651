import { SchemaAST, SchemaIssue } from "effect"
import { didYouMean } from "./DidYouMean.js"
import type { IssueAnchor, IssuePath } from "./IssueCollector.js"

/** One problem found by a schema, relative to the decoded value, ready to be located and reported. */
export interface SchemaProblem {
  readonly path: IssuePath
  readonly message: string
  readonly anchor: IssueAnchor
}

const standardFormatter = SchemaIssue.makeFormatterStandardSchemaV1()

const segment = (key: PropertyKey): string | number => (typeof key === "symbol" ? String(key) : key)

const show = (value: unknown): string => (typeof value === "string" ? `\`${value}\`` : (JSON.stringify(value) ?? "?"))

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
 * Decode with `reportInput: true` so messages can quote the offending value.
 */
export const schemaProblems = (issue: SchemaIssue.Issue, path: IssuePath = []): Array<SchemaProblem> => {
  switch (issue._tag) {
    case "Pointer":
      return schemaProblems(issue.issue, [...path, ...issue.path.map(segment)])
    case "Composite":
      return issue.issues.flatMap((inner) => schemaProblems(inner, path))
    case "Encoding":
      return schemaProblems(issue.issue, path)
    case "UnexpectedKey":
      return [{ path, message: unknownKey(String(path.at(-1) ?? ""), issue.ast), anchor: "key" }]
    case "MissingKey":
      return [{ path, message: `missing required key \`${String(path.at(-1) ?? "")}\``, anchor: "key" }]
    case "AnyOf": {
      if (issue.issues.length > 0) return issue.issues.flatMap((inner) => schemaProblems(inner, path))
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
