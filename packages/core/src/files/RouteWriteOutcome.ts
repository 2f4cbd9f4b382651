import type { ReloadOutcome } from "../routes/Routes.js"

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** What the reload after a route file's write did for that file, in words to follow "routes file x.yml written". */
export interface RouteWriteOutcome {
  readonly text: string
  /** Whether the reload validated the files: if not, the write is not applied and the reload is worth retrying. */
  readonly validated: boolean
}

/**
 * Words the reload that followed the write of `filename`. The write itself was validated with the other files, so
 * its routes are applied unless the reload could not validate anything (the validation workers busy or failing:
 * then nothing changed, and saying "applied" would be false), or found a problem in the file itself (changed on
 * disk since, or a route that lost to another provider's). Problems of other files and providers are named as
 * theirs: they keep their previous routes, which the write did not touch.
 */
export const routeWriteOutcome = (filename: string, outcome: ReloadOutcome): RouteWriteOutcome => {
  if (outcome.unvalidated !== undefined && outcome.unvalidated.length > 0) {
    return {
      validated: false,
      text:
        `, but not applied: the route files could not be validated (${outcome.unvalidated.join("; ")}), so the ` +
        "running routes are unchanged; the reload is tried again shortly (see the config/error event)"
    }
  }
  const own = outcome.issues.filter((issue) => issue.file === filename)
  if (own.length > 0) {
    return {
      validated: true,
      text:
        `; the reload found ${plural(own.length, "problem")} in it, and the routes concerned are not served ` +
        "(see the config/error event)"
    }
  }
  const others = outcome.issues.filter((issue) => issue.file !== undefined)
  const elsewhere = outcome.issues.length - others.length
  const files = [...new Set(others.map((issue) => issue.file!))]
  const parts = [
    ...(files.length === 0
      ? []
      : [
          `${plural(files.length, "other route file")} (${files.join(", ")}) ${files.length === 1 ? "has" : "have"} ` +
            `${plural(others.length, "problem")} and ${files.length === 1 ? "keeps its" : "keep their"} previous routes`
        ]),
    ...(elsewhere === 0 ? [] : [`${plural(elsewhere, "problem")} outside the route files`])
  ]
  return {
    validated: true,
    text: ` and applied${parts.length === 0 ? "" : `; ${parts.join("; ")} (see the config/error event)`}`
  }
}
