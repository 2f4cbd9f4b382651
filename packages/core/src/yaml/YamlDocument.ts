import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import { LineCounter } from "yaml"
import { parseDocumentGuarded } from "./GuardedParse.js"
import type { IssuePath, Locator } from "./IssueCollector.js"
import { scanNesting } from "./NestingScan.js"
import { AliasCountExceeded, plainValue } from "./PlainValue.js"
import { syntaxMessage } from "./SyntaxMessage.js"
import { type AuditLimits, auditYaml } from "./YamlAudit.js"
import {
  makePathWalker,
  makePlainScalarTest,
  makePositionFinder,
  type PositionFinder,
  type YamlPosition
} from "./YamlPositions.js"

/** Caps that keep hostile or accidental input from exhausting memory or CPU. */
export interface YamlLimits extends AuditLimits {
  /** Largest accepted input, in UTF-8 bytes. */
  readonly maxBytes: number
  /**
   * yaml's own guard (`maxAliasCount`): references to one anchor times the alias fan-out inside it. A backstop:
   * `maxNodes` is the precise bound. yaml's default of 100 would refuse an honest file that reuses
   * `<<: *defaults` in 101 routes.
   */
  readonly maxAliasCount: number
}

/**
 * How much scalar text a document may expand to through aliases, as a multiple of `maxBytes` (when
 * `maxExpandedChars` is not set). A document without aliases never counts more characters than it has bytes, so
 * any accepted file passes whatever its size; the factor of 4 leaves a file at the size limit room to reuse
 * defaults through aliases (`<<: *defaults` in every route) for three times its own size again, while keeping what
 * a small document can blow up into in the same order as what the largest honest file renders to.
 */
export const expandedCharsPerByte = 4

/**
 * Defaults: 8 MiB (a route file of ~60,000 routes), 2,000,000 nodes and 32 Mi characters of scalar text after alias
 * expansion, 64 levels of nesting, 100,000 alias references. Request bodies have their own, smaller limit in the
 * HTTP server.
 */
export const defaultYamlLimits: YamlLimits = {
  maxBytes: 8 * 1024 * 1024,
  maxAliasCount: 100_000,
  maxNodes: 2_000_000,
  maxExpandedChars: expandedCharsPerByte * 8 * 1024 * 1024,
  maxDepth: 64
}

/** The defaults with some limits overridden; a smaller `maxBytes` alone lowers `maxExpandedChars` with it. */
export const resolveYamlLimits = (overrides: Partial<YamlLimits> = {}): YamlLimits => {
  const maxBytes = overrides.maxBytes ?? defaultYamlLimits.maxBytes
  return {
    ...defaultYamlLimits,
    ...overrides,
    maxExpandedChars: overrides.maxExpandedChars ?? expandedCharsPerByte * maxBytes
  }
}

/** A key written twice in one mapping (the plain value keeps the last one). */
export interface DuplicateKey {
  readonly path: IssuePath
  readonly position: YamlPosition
  readonly first: YamlPosition
}

/** A well-formed YAML document: its plain value, its duplicate keys, and where each part of it is written. */
export interface YamlDocument {
  /** The document as plain data (`null` for an empty document); merge keys applied, aliases shared. */
  readonly value: unknown
  readonly duplicateKeys: ReadonlyArray<DuplicateKey>
  readonly positionOf: PositionFinder
  /** Whether the value at a path is written as a plain scalar: not quoted, not a block scalar (`|`, `>`). */
  readonly isPlainScalar: (path: IssuePath) => boolean
}

/** The outcome of {@link parseYaml}: a document, or the reasons there is none (syntax errors, limits). */
export type YamlParseResult =
  | { readonly _tag: "Parsed"; readonly document: YamlDocument }
  | { readonly _tag: "Invalid"; readonly issues: ReadonlyArray<ValidationIssue> }

/** Options of {@link parseYaml}. */
export interface ParseYamlOptions {
  /** Set on every issue, for multi-file input. */
  readonly file?: string
  readonly limits?: Partial<YamlLimits>
}

const byteLengthOver = (text: string, max: number): number | undefined => {
  if (text.length * 3 <= max) return undefined // no UTF-16 code unit takes more than 3 UTF-8 bytes
  const bytes = Buffer.byteLength(text, "utf8")
  return bytes > max ? bytes : undefined
}

// Line and column of an offset, as yaml's LineCounter gives them (1-based; columns in UTF-16 code units).
const positionIn = (text: string, offset: number) => {
  let line = 1
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++
  return { line, column: offset - (text.lastIndexOf("\n", offset - 1) + 1) + 1 }
}

// The parser's stack holds the document and at most one pending token (a scalar that may turn out to be a key)
// above the open collections: measured on generated documents, never more than depth + 2.
const parserStackMargin = 2

const nestingIssue = (
  limits: YamlLimits,
  position: { readonly line: number; readonly column: number },
  file: { readonly file?: string }
): ValidationIssue => ({
  path: [],
  message:
    `document nests deeper than ${limits.maxDepth} levels ` +
    `(the limit is passed at line ${position.line}, column ${position.column})`,
  ...position,
  ...file
})

/**
 * The issue {@link parseYaml} refuses a text with before parsing it — over the size limit, or nesting deeper than
 * the depth limit — or `undefined`. Cheap: at most one pass over the text, less for a refused one (the nesting
 * scan stops where the limit is passed); callers use it to refuse such input without queueing it anywhere.
 */
export const refusedBeforeParsing = (text: string, options: ParseYamlOptions = {}): ValidationIssue | undefined => {
  const limits = resolveYamlLimits(options.limits)
  const file = options.file === undefined ? {} : { file: options.file }
  const bytes = byteLengthOver(text, limits.maxBytes)
  if (bytes !== undefined) {
    return { path: [], message: `YAML input is ${bytes} bytes, over the limit of ${limits.maxBytes}`, ...file }
  }
  const scan = scanNesting(text, limits.maxDepth)
  return scan.exceededAt === undefined ? undefined : nestingIssue(limits, positionIn(text, scan.exceededAt), file)
}

/**
 * Parses one YAML document keeping source positions. Every syntax error is reported (not just the first), with
 * 1-based line and column. Oversize input, alias bombs ("billion laughs", or a long value reused by many
 * aliases), alias cycles and excessive nesting are refused with a clear issue before the document is ever expanded
 * into plain values; nesting is refused by a linear pre-scan before the parser sees the text (and bounded while it
 * parses), so a megabyte of `[[[[` costs microseconds, not seconds.
 * YAML 1.2 core schema, plus merge keys (`<<: *base`). Duplicate keys are not errors here: they are returned
 * in `duplicateKeys` so the caller can report them in its own terms ("duplicate alias").
 */
export const parseYaml = (text: string, options: ParseYamlOptions = {}): YamlParseResult => {
  const limits = resolveYamlLimits(options.limits)
  const file = options.file === undefined ? {} : { file: options.file }
  const invalid = (issues: ReadonlyArray<ValidationIssue>): YamlParseResult => ({ _tag: "Invalid", issues })

  const refused = refusedBeforeParsing(text, options)
  if (refused !== undefined) return invalid([refused])
  const tooDeep = (position: { readonly line: number; readonly column: number }) => nestingIssue(limits, position, file)

  const lineCounter = new LineCounter()
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset)
    return { line, column: col }
  }
  // Duplicate keys: yaml's check scans the whole mapping for every key (quadratic in a 10,000-route file), so it is
  // off (`uniqueKeys: false`); auditYaml finds duplicates in one pass instead.
  const parsed = parseDocumentGuarded(text, { lineCounter, maxStack: limits.maxDepth + parserStackMargin })
  if (parsed._tag === "TooDeep") return invalid([tooDeep(positionIn(text, parsed.offset))])
  const document = parsed.document
  if (document.errors.length > 0) {
    return invalid(
      document.errors.map((error) => ({ path: [], message: syntaxMessage(error), ...at(error.pos[0]), ...file }))
    )
  }

  const audit = auditYaml(document.contents, limits)
  if (audit.problem !== undefined) {
    const position = at(audit.problem.offset)
    return invalid([
      audit.problem.tooDeep === true
        ? tooDeep(position)
        : { path: [], message: audit.problem.message, ...position, ...file }
    ])
  }

  let value: unknown
  try {
    value = plainValue(document.contents, audit.aliasTargets, limits.maxAliasCount)
  } catch (error) {
    if (!(error instanceof AliasCountExceeded)) throw error
    const message = `document uses aliases more than ${limits.maxAliasCount} times (counting nested aliases); refusing it (possible "billion laughs" attack)`
    return invalid([{ path: [], message, ...file }])
  }

  const walker = makePathWalker(document.contents)
  return {
    _tag: "Parsed",
    document: {
      value: value ?? null,
      duplicateKeys: audit.duplicateKeys.map((duplicate) => ({
        path: duplicate.path,
        position: at(duplicate.offset),
        first: at(duplicate.firstOffset)
      })),
      positionOf: makePositionFinder(walker, lineCounter),
      isPlainScalar: makePlainScalarTest(walker)
    }
  }
}

/** A {@link Locator} for issues in a parsed document: line and column of the path, plus the file name. */
export const yamlLocator =
  (document: YamlDocument, file?: string): Locator =>
  (path, anchor) => {
    const position = document.positionOf(path, anchor)
    return { ...position, ...(file === undefined ? {} : { file }) }
  }
