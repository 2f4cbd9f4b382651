/**
 * Embeds Gatehouse's route validator in a script of your own: checks route files as the server would load them
 * (each file on its own, then across files: duplicate aliases, port conflicts, references) and prints every problem
 * as `file:line:column: message`, like a compiler, so editors and CI can point at it.
 *
 *   npx tsx --conditions=@gatehouse-edge/source examples/embed-validator.ts routes/*.yml
 *
 * Exit status: 0 when every file is valid, 1 when there are problems, 2 for a usage error. It imports the validator
 * from `@gatehouse-edge/core/routes`, which loads neither the store nor the services nor their drivers.
 */
import * as fs from "node:fs"
import type { ValidationIssue } from "@gatehouse-edge/core/domain"
import { validateRouteSources } from "@gatehouse-edge/core/routes"

const files = process.argv.slice(2)
if (files.length === 0) {
  console.error("usage: embed-validator.ts <route file (YAML)>...")
  process.exit(2)
}

const location = (issue: ValidationIssue) =>
  [issue.file ?? issue.label ?? "", issue.line, issue.column].filter((part) => part !== undefined).join(":")

const unreadable: Array<ValidationIssue> = []
const sources = files.flatMap((file) => {
  try {
    return [{ file, text: fs.readFileSync(file, "utf8") }]
  } catch (error) {
    unreadable.push({ path: [], message: `cannot read: ${(error as NodeJS.ErrnoException).code}`, file })
    return []
  }
})

const report = validateRouteSources(sources)
// Compiler order: files as given, then by position.
const order = (issue: ValidationIssue) => [files.indexOf(issue.file ?? ""), issue.line ?? 0, issue.column ?? 0]
const issues = [...unreadable, ...report.issues].sort((a, b) => {
  const [x, y] = [order(a), order(b)]
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!
})
for (const issue of issues) console.log(`${location(issue)}: ${issue.message}`)

if (issues.length > 0) {
  console.log(`${issues.length} problem${issues.length === 1 ? "" : "s"} in ${files.length} file(s)`)
  process.exit(1)
}
const routes = report.files.reduce((n, f) => n + (f.report._tag === "Parsed" ? f.report.routes.length : 0), 0)
console.log(`OK: ${routes} route${routes === 1 ? "" : "s"} in ${files.length} file${files.length === 1 ? "" : "s"}`)
