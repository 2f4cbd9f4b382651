import type { ValidationIssue } from "@gatehouse-edge/contract/domain"

/** A path into a value: map keys and sequence indexes, as in {@link ValidationIssue}. */
export type IssuePath = ValidationIssue["path"]

/** Whether an issue points at a map entry's key (unknown or duplicate keys) or at its value. */
export type IssueAnchor = "key" | "value"

/** Where an issue is in its source: line/column for YAML, the file, or the Docker label that set the value. */
export interface IssueLocation {
  readonly line?: number
  readonly column?: number
  readonly file?: string
  readonly label?: string
  readonly provider?: string
}

/**
 * Finds where a path is in the source. Called only when an issue is reported, so a YAML locator can afford to
 * compute line and column lazily instead of for every node.
 */
export type Locator = (path: IssuePath, anchor: IssueAnchor) => IssueLocation

/** A locator that knows nothing about the source (plain values built in code). */
export const noLocation: Locator = () => ({})

/** A locator that only names the file. */
export const fileLocation =
  (file: string): Locator =>
  () => ({ file })

/**
 * Issues one list keeps. Each is a line of a report, of an API answer and of an event: a 400 KB document of
 * 200,000 bad list items made a 17.8 MB answer in 6.4 s. Past it, one more issue says so and the rest are dropped.
 */
export const MAX_ISSUES = 1000

/**
 * Collects the issues of one validation run. Validators report a path relative to what they check; the
 * collector prefixes it twice: `path` is the path shown to the user (a route's alias first), `source` is where
 * the value sits in the parsed input (for a single-route document the alias is not a key there).
 */
export class IssueCollector {
  constructor(
    readonly locate: Locator,
    readonly issues: Array<ValidationIssue> = [],
    readonly path: IssuePath = [],
    readonly source: IssuePath = path
  ) {}

  /** Records a problem at `path` (relative to this collector). */
  add(path: IssuePath, message: string, anchor: IssueAnchor = "value"): void {
    if (this.full()) return
    const location = this.locate(this.source.length === 0 ? path : [...this.source, ...path], anchor)
    this.issues.push({ path: this.path.length === 0 ? path : [...this.path, ...path], message, ...location })
  }

  // Whether the list has its {@link MAX_ISSUES}; the first time, one last issue says that more were found.
  private full(): boolean {
    if (this.issues.length < MAX_ISSUES) return false
    if (this.issues.length === MAX_ISSUES) {
      const message = `more than ${MAX_ISSUES} problems: only the first ${MAX_ISSUES} are listed`
      this.issues.push({ path: this.path, message, ...this.locate(this.source, "key") })
    }
    return true
  }

  /** A collector for a sub-tree that writes into the same issue list. */
  nested(path: IssuePath, source: IssuePath = path): IssueCollector {
    return new IssueCollector(this.locate, this.issues, [...this.path, ...path], [...this.source, ...source])
  }

  /** A collector with the same prefixes and locator but its own issue list. */
  fork(): IssueCollector {
    return new IssueCollector(this.locate, [], this.path, this.source)
  }

  /** Where the value at `path` is, as `file:line:column` (or the label), for messages that point elsewhere. */
  describe(path: IssuePath = [], anchor: IssueAnchor = "key"): string {
    const location = this.locate([...this.source, ...path], anchor)
    const parts = [location.file ?? location.label ?? location.provider, location.line, location.column].filter(
      (p) => p !== undefined
    )
    return parts.length === 0 ? "an unknown location" : parts.join(":")
  }

  /** Records a problem whose position is already known (e.g. a duplicate key found by the parser). */
  addAt(path: IssuePath, message: string, position: IssueLocation): void {
    if (this.full()) return
    const location = this.locate(this.source.length === 0 ? path : [...this.source, ...path], "key")
    this.issues.push({ path: [...this.path, ...path], message, ...location, ...position })
  }
}
