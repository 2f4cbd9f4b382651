import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"

/** The literal values a schema allows, when it is a literal or a union of literals (`FileType`, `UptimePeriod`). */
const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<unknown> | undefined => {
  if (ast._tag === "Literal") return [ast.literal]
  if (ast._tag === "Union" && ast.types.length > 0 && ast.types.every((t) => t._tag === "Literal"))
    return ast.types.map((t) => (t as SchemaAST.Literal).literal)
  return undefined
}

const quoted = (value: unknown) => (typeof value === "string" ? `"${value}"` : String(value))

const oneOf = (literals: ReadonlyArray<unknown>, input: unknown) => {
  const allowed = literals.map(quoted)
  const got = input === undefined ? "" : `, got ${JSON.stringify(input)}`
  return allowed.length === 1
    ? `expected ${allowed[0]}${got}`
    : `expected one of ${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)}${got}`
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

type Path = ReadonlyArray<PropertyKey>

// Where the issue tree says "none of these literals": the formatter names the union's identifier there ("Expected
// UptimePeriod"), so the message is replaced by the values it allows. Paths as the formatter builds them.
const literalMisses = (issue: SchemaIssue.Issue, path: Path, found: Map<string, string>): void => {
  switch (issue._tag) {
    case "Filter":
    case "Encoding":
      literalMisses(issue.issue, path, found)
      break
    case "Pointer":
      literalMisses(issue.issue, [...path, ...issue.path], found)
      break
    case "Composite":
      for (const inner of issue.issues) literalMisses(inner, path, found)
      break
    case "AnyOf": {
      for (const inner of issue.issues) literalMisses(inner, path, found)
      const literals = issue.issues.length === 0 ? literalsOf(issue.ast) : undefined
      if (literals !== undefined) found.set(JSON.stringify(path.map(String)), oneOf(literals, issue.input))
      break
    }
  }
}

/**
 * A request's schema failure as `{ path, message }` entries, a value outside a set of literals told what it may be,
 * never the name of one of our schemas: `?period=2h` got "Expected UptimePeriod".
 */
export const formatRequestIssues = (
  issue: SchemaIssue.Issue
): ReadonlyArray<{ readonly path: Path; readonly message: string }> => {
  const misses = new Map<string, string>()
  literalMisses(issue, [], misses)
  return formatter(issue).issues.map((entry) => {
    const path = (entry.path ?? []).map((p) => (typeof p === "object" ? p.key : p))
    return { path, message: misses.get(JSON.stringify(path.map(String))) ?? entry.message }
  })
}
