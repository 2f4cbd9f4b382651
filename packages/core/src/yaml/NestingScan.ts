/**
 * A linear pre-scan of YAML text for nesting depth, run before the `yaml` parser sees the text. The parser's
 * composer and our own walkers recurse once per level, and the parser is quadratic in depth: 1 MiB of `[[[[…`
 * held the event loop for seconds and overflowed the stack. This scan refuses such input in time proportional to
 * the prefix it reads (it stops at the first level past the limit) and in one pass over valid input.
 *
 * To see the same structure as the parser it follows the decisions of yaml's own lexer (`yaml/dist/parse/lexer.js`)
 * wherever they decide what is text and what is structure: quoted scalars (and where a multi-line one is cut by
 * an unindented line), block scalars (`|`, `>`: which following lines are their content), plain scalars (which
 * continue over more-indented lines: `a: x\n  [y` is one scalar), comments, anchors and tags, and a flow collection
 * ended by an unindented line. On top of that token stream it counts levels:
 *
 * - flow: every `[` / `{`; a `key: value` pair inside `[…]` is a one-pair mapping, one more level;
 * - block: a stack of open collections by indentation column — `-` entries make sequences, `key:`, `?` and `:`
 *   make mappings; compact forms on one line (`- - - x`, `- key: v`) nest; a sequence written at its parent
 *   key's column (`a:\n- x`) is a level of its own; a content line pops the collections indented deeper than it;
 * - a collection used as an implicit key (`[a]: b`) sits inside the mapping that follows it: its depth is
 *   counted again, one deeper, once the `:` shows it was a key.
 *
 * Where the model and YAML could differ (malformed input), it errs on the side of counting a level more, never
 * less; the audit after parsing checks the exact depth of what the parser built.
 */

/** What {@link scanNesting} found. */
export interface NestingScan {
  /** The deepest nesting seen (at most `maxDepth + 1`, where the scan stops). */
  readonly depth: number
  /** Offset of the collection that opens level `maxDepth + 1`, if the text nests that deep. */
  readonly exceededAt: number | undefined
}

enum Kind {
  BlockSeq,
  BlockMap,
  FlowSeq,
  FlowMap,
  /** A `key: value` entry of a flow sequence: an implicit mapping of one pair. */
  FlowPair
}

interface Level {
  readonly kind: Kind
  /** Column of a block collection (its entries' indicators or keys); -1 for flow levels. */
  readonly indent: number
  /** The deepest level (absolute) reached inside this one, and the offset of the collection that reached it. */
  peak: number
  peakOffset: number
  /** Flow levels: where the current key or value began (an implicit mapping opens there), or -1. */
  entryStart: number
  /** Flow levels: whether the current entry has had its `:` (another one nests a mapping: `[a: b: c]`). */
  valueSeen: boolean
}

enum State {
  Stream,
  LineStart,
  BlockStart,
  Doc,
  Flow
}

class TooDeep {
  constructor(readonly offset: number) {}
}

// The lexer's character classes.
const isEmpty = (ch: string | undefined) => ch === undefined || ch === " " || ch === "\n" || ch === "\r" || ch === "\t"
const isFlowIndicator = (ch: string | undefined) => ch === "," || ch === "[" || ch === "]" || ch === "{" || ch === "}"
const isNotAnchorChar = (ch: string | undefined) => isEmpty(ch) || isFlowIndicator(ch)
const tagChars = new Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()")
const hexDigits = new Set("0123456789ABCDEFabcdef")

class Scanner {
  pos = 0
  lineStart = 0
  // The lexer's own indentation state: `indentNext` decides which lines continue a scalar.
  indentValue = 0
  indentNext = 0
  flowLevel = 0
  flowKey = false
  readonly levels: Array<Level> = []
  deepest = 0
  newlineSearchedFrom = Number.POSITIVE_INFINITY
  newlineFound = -1
  /** The flow collection that just closed: an implicit key if a `:` follows it. */
  closed: Level | undefined = undefined
  /** Block: the column where the current node began (an implicit key's mapping sits there). */
  keyColumn = 0

  constructor(
    readonly text: string,
    readonly maxDepth: number
  ) {}

  run(): void {
    let state = State.Stream
    const end = this.text.length
    while (this.pos < end) {
      const before = this.pos
      const beforeState: State = state
      state = this.step(state)
      // Every state consumes input or moves to one that does; this only guards the loop against a mistake.
      if (this.pos === before && state === beforeState) this.pos++
    }
  }

  step(state: State): State {
    switch (state) {
      case State.Stream:
        return this.stream()
      case State.LineStart:
        return this.startLine()
      case State.BlockStart:
        return this.blockStart()
      case State.Doc:
        return this.doc()
      case State.Flow:
        return this.flow()
    }
  }

  // --- levels -----------------------------------------------------------------------------------------------

  top(): Level | undefined {
    return this.levels[this.levels.length - 1]
  }

  push(kind: Kind, indent: number, offset: number): Level {
    const depth = this.levels.length + 1
    if (depth > this.maxDepth) {
      this.deepest = depth
      throw new TooDeep(offset)
    }
    if (depth > this.deepest) this.deepest = depth
    const level: Level = { kind, indent, peak: depth, peakOffset: offset, entryStart: -1, valueSeen: false }
    this.levels.push(level)
    return level
  }

  pop(): Level {
    const level = this.levels.pop()!
    const parent = this.top()
    if (parent !== undefined && level.peak > parent.peak) {
      parent.peak = level.peak
      parent.peakOffset = level.peakOffset
    }
    return level
  }

  // A collection that turned out to be an implicit key is one level deeper than it was counted: it sits inside
  // the mapping (or pair) that was only opened at the `:` after it.
  enclose(level: Level, key: Level | undefined): void {
    if (key === undefined) return
    const depth = key.peak + 1
    if (depth > this.maxDepth) {
      this.deepest = depth
      throw new TooDeep(key.peakOffset)
    }
    if (depth > this.deepest) this.deepest = depth
    if (depth > level.peak) {
      level.peak = depth
      level.peakOffset = key.peakOffset
    }
  }

  /** A block entry (`-`, `?`, `:` or an implicit key) at `column`: its collection, opened when it is new. */
  blockEntry(kind: Kind.BlockSeq | Kind.BlockMap, column: number, offset: number): Level | undefined {
    const top = this.top()
    if (top !== undefined && top.indent === column) {
      if (top.kind === kind) return undefined
      if (kind === Kind.BlockMap && top.kind === Kind.BlockSeq) {
        // `a:\n- x\nb: 1`: the sequence (the value of `a`) ends; `b` is the mapping's next key.
        this.pop()
        const under = this.top()
        if (under !== undefined && under.indent === column && under.kind === Kind.BlockMap) return undefined
      }
      // A sequence at its parent key's column (`a:\n- x`) is nested in that mapping.
    }
    return this.push(kind, column, offset)
  }

  popBlockDeeperThan(indent: number): void {
    for (let top = this.top(); top !== undefined && top.indent > indent; top = this.top()) this.pop()
  }

  closeFlow(): Level {
    this.endFlowEntry()
    return this.pop()
  }

  /** A `,` (or the end of the collection): the implicit mappings of the entry end with it. */
  endFlowEntry(): void {
    while (this.top()?.kind === Kind.FlowPair) this.pop()
    const top = this.top()
    if (top !== undefined) {
      top.entryStart = -1
      top.valueSeen = false
    }
  }

  /** Notes where the current flow key or value began, at its first token. */
  startEntry(): void {
    const top = this.top()
    if (top !== undefined && top.entryStart === -1) top.entryStart = this.pos
  }

  closeAllFlow(): void {
    for (let top = this.top(); top !== undefined && top.indent === -1; top = this.top()) this.pop()
    this.flowLevel = 0
  }

  /**
   * A `:` in a flow collection. The first one of a mapping's entry is the mapping's own; in a sequence it makes
   * the entry a one-pair mapping; any further one in the same entry nests another (`[a: b: c]` is `[{a: {b: c}}]`).
   */
  flowValue(offset: number): void {
    const top = this.top()!
    if ((top.kind === Kind.FlowMap || top.kind === Kind.FlowPair) && !top.valueSeen) {
      top.valueSeen = true
      top.entryStart = -1
    } else this.implicitPair(offset, true)
    this.closed = undefined
  }

  /** A `?` in a flow collection: an explicit key, which in a sequence (or after a value) opens a mapping. */
  flowExplicitKey(offset: number): void {
    const top = this.top()!
    if (top.kind === Kind.FlowSeq || top.valueSeen) this.implicitPair(offset, false)
    this.closed = undefined
  }

  /**
   * A flow collection after another node of the same entry, with no `,` or `:` between (`[a [b]]`): the parser
   * reads the first node as the key of a one-pair mapping (`[{a: [b]}]`), and reports the missing `:`.
   */
  collectionAfterNode(): void {
    const top = this.top()!
    if (top.entryStart !== -1 && (top.kind === Kind.FlowSeq || top.valueSeen)) this.implicitPair(this.pos, true)
    this.startEntry()
  }

  implicitPair(offset: number, valueSeen: boolean): void {
    const top = this.top()!
    const pair = this.push(Kind.FlowPair, -1, top.entryStart === -1 ? offset : top.entryStart)
    pair.valueSeen = valueSeen
    this.enclose(pair, this.closed)
  }

  // --- characters ---------------------------------------------------------------------------------------------

  ch(at: number): string | undefined {
    return this.text[at]
  }

  skipSpaces(allowTabs: boolean): number {
    const start = this.pos
    for (let ch = this.text[this.pos]; ch === " " || (allowTabs && ch === "\t"); ch = this.text[++this.pos]);
    return this.pos - start
  }

  skipToLineEnd(): void {
    const newline = this.text.indexOf("\n", this.pos)
    this.pos = newline === -1 ? this.text.length : newline
  }

  /** Past the `\n` (or `\r\n`) at `pos`, if there is one; true when a line ended. */
  newline(): boolean {
    const ch = this.text[this.pos]
    if (ch === "\n") this.pos += 1
    else if (ch === "\r" && this.text[this.pos + 1] === "\n") this.pos += 2
    else return false
    this.lineStart = this.pos
    return true
  }

  /** Whether only spaces, tabs and maybe a comment are left on the line (the lexer's `atLineEnd`). */
  atLineEnd(from: number): boolean {
    let i = from
    let ch = this.text[i]
    while (ch === " " || ch === "\t") ch = this.text[++i]
    if (ch === undefined || ch === "#" || ch === "\n") return true
    return ch === "\r" && this.text[i + 1] === "\n"
  }

  isDocumentMarker(at: number): boolean {
    const marker = this.text.slice(at, at + 3)
    return (marker === "---" || marker === "...") && isEmpty(this.text[at + 3])
  }

  // The lexer's `continueScalar`: where the scalar goes on after the line break before `offset`, or -1.
  continueScalar(offset: number): number {
    let ch = this.text[offset]
    if (this.indentNext > 0) {
      let indent = 0
      while (ch === " ") ch = this.text[++indent + offset]
      if (ch === "\r" && this.text[indent + offset + 1] === "\n") return offset + indent + 1
      return ch === "\n" || indent >= this.indentNext ? offset + indent : -1
    }
    if ((ch === "-" || ch === ".") && this.isDocumentMarker(offset)) return -1
    return offset
  }

  skipAnchor(): void {
    this.pos++
    while (!isNotAnchorChar(this.text[this.pos])) this.pos++
  }

  skipTag(): void {
    let i = this.pos + 1
    let ch = this.text[i]
    if (ch === "<") {
      while (!isEmpty(ch) && ch !== ">") ch = this.text[++i]
      this.pos = ch === ">" ? i + 1 : i
      return
    }
    while (ch !== undefined) {
      if (tagChars.has(ch)) ch = this.text[++i]
      else if (ch === "%" && hexDigits.has(this.text[i + 1]!) && hexDigits.has(this.text[i + 2]!))
        ch = this.text[(i += 3)]
      else break
    }
    this.pos = i
  }

  // The lexer's `parseQuotedScalar`: to the closing quote, unless a line inside is indented too little.
  quotedScalar(): void {
    const text = this.text
    const quote = text[this.pos]!
    let end = text.indexOf(quote, this.pos + 1)
    if (quote === "'") {
      while (end !== -1 && text[end + 1] === "'") end = text.indexOf("'", end + 2)
    } else {
      while (end !== -1) {
        let backslashes = 0
        while (text[end - 1 - backslashes] === "\\") backslashes += 1
        if (backslashes % 2 === 0) break
        end = text.indexOf('"', end + 1)
      }
    }
    let continuedAt = -1
    if (end !== -1) {
      let newline = this.newlineFrom(this.pos)
      while (newline !== -1 && newline < end) {
        const next = this.continueScalar(newline + 1)
        if (next === -1) break
        continuedAt = newline
        newline = this.newlineFrom(next)
      }
      if (newline !== -1 && newline < end) end = newline - (text[newline - 1] === "\r" ? 2 : 1)
    } else {
      end = text.length
    }
    this.pos = Math.max(end + 1, this.pos + 1)
    if (continuedAt !== -1 && continuedAt < this.pos) this.lineStart = continuedAt + 1
  }

  // The first line break at or after `from`. Remembered, so a line of many quoted scalars is not searched to its
  // end once per scalar (`from` only grows).
  newlineFrom(from: number): number {
    if (this.newlineSearchedFrom > from || (this.newlineFound !== -1 && this.newlineFound < from)) {
      this.newlineSearchedFrom = from
      this.newlineFound = this.text.indexOf("\n", from)
    }
    return this.newlineFound
  }

  // The lexer's `parsePlainScalar`: it ends at `: `, ` #`, a flow indicator in flow, or a line that does not
  // continue it.
  plainScalar(): void {
    const text = this.text
    const inFlow = this.flowLevel > 0
    let end = this.pos - 1
    let i = this.pos - 1
    let lastNewline = -1
    let ch: string | undefined
    while ((ch = text[++i]) !== undefined) {
      if (ch === ":") {
        const next = text[i + 1]
        if (isEmpty(next) || (inFlow && isFlowIndicator(next))) break
        end = i
      } else if (isEmpty(ch)) {
        let next = text[i + 1]
        if (ch === "\r") {
          if (next === "\n") {
            i += 1
            ch = "\n"
            next = text[i + 1]
          } else end = i
        }
        if (next === "#" || (inFlow && isFlowIndicator(next))) break
        if (ch === "\n") {
          const continued = this.continueScalar(i + 1)
          if (continued === -1) break
          lastNewline = i
          i = Math.max(i, continued - 2)
        }
      } else {
        if (inFlow && isFlowIndicator(ch)) break
        end = i
      }
    }
    const start = this.pos
    this.pos = Math.max(end + 1, start)
    // The scalar may end on a later line: columns are counted from that line's start.
    if (lastNewline !== -1 && lastNewline < this.pos) this.lineStart = lastNewline + 1
  }

  // The lexer's block scalar: the header line, then every line that is blank or indented at least as much as the
  // first content line (which must be indented more than the parent's `indentNext`).
  blockScalar(): void {
    const text = this.text
    let explicitIndent = -1
    for (let i = this.pos + 1; ; i++) {
      const ch = text[i]
      if (ch !== undefined && ch > "0" && ch <= "9") explicitIndent = Number(ch) - 1
      else if (ch !== "+" && ch !== "-") break
    }
    this.skipToLineEnd()
    if (!this.newline()) return
    let newline = this.pos - 1
    let indent = 0
    let i = this.pos
    for (let ch = text[i]; ch !== undefined; ch = text[++i]) {
      if (ch === " ") indent += 1
      else if (ch === "\n") {
        newline = i
        indent = 0
      } else if (ch !== "\r" || text[i + 1] !== "\n") break
    }
    if (indent >= this.indentNext) {
      this.indentNext = explicitIndent === -1 ? indent : explicitIndent + (this.indentNext === 0 ? 1 : this.indentNext)
      do {
        const next = this.continueScalar(newline + 1)
        if (next === -1) break
        newline = text.indexOf("\n", next)
      } while (newline !== -1)
      if (newline === -1) newline = text.length
    }
    this.pos = Math.min(newline + 1, text.length)
    this.lineStart = this.pos
  }

  // --- states -------------------------------------------------------------------------------------------------

  stream(): State {
    if (this.text.charCodeAt(this.pos) === 0xfeff) this.pos++
    if (this.text[this.pos] === "%" || this.atLineEnd(this.pos)) {
      this.skipToLineEnd()
      this.newline()
      return State.Stream
    }
    return State.LineStart
  }

  startLine(): State {
    this.lineStart = this.pos
    if (this.isDocumentMarker(this.pos)) {
      // A new document: nothing of the last one is open any more.
      while (this.levels.length > 0) this.pop()
      const start = this.text[this.pos] === "-"
      this.pos += 3
      this.indentValue = 0
      this.indentNext = 0
      this.keyColumn = 3
      this.closed = undefined
      return start ? State.Doc : State.Stream
    }
    this.indentValue = this.skipSpaces(false)
    return this.afterIndentation(this.indentValue)
  }

  afterIndentation(indent: number): State {
    if (this.indentNext > this.indentValue && !isEmpty(this.text[this.pos + 1])) this.indentNext = this.indentValue
    // A line with content closes every block collection indented deeper than it; comments and blank lines do not.
    if (!this.atLineEnd(this.pos)) this.popBlockDeeperThan(indent)
    return State.BlockStart
  }

  blockStart(): State {
    const ch = this.text[this.pos]
    if ((ch === "-" || ch === "?" || ch === ":") && isEmpty(this.text[this.pos + 1])) {
      this.blockEntry(ch === "-" ? Kind.BlockSeq : Kind.BlockMap, this.pos - this.lineStart, this.pos)
      this.pos++
      const n = 1 + this.skipSpaces(true)
      this.indentNext = this.indentValue + 1
      this.indentValue += n
      return State.BlockStart
    }
    this.keyColumn = this.pos - this.lineStart
    this.closed = undefined
    return State.Doc
  }

  doc(): State {
    this.skipSpaces(true)
    for (;;) {
      const ch = this.text[this.pos]
      if (ch === "!") this.skipTag()
      else if (ch === "&") this.skipAnchor()
      else if ((ch === "-" || ch === "?" || ch === ":") && isEmpty(this.text[this.pos + 1])) {
        this.indentNext = this.indentValue + 1
        const column = this.pos - this.lineStart
        if (ch === ":") {
          // The value indicator of an implicit key that began at `keyColumn` (or of an empty key).
          const keyColumn = Math.min(this.keyColumn, column)
          const map = this.blockEntry(Kind.BlockMap, keyColumn, this.lineStart + keyColumn)
          if (map !== undefined) this.enclose(map, this.closed)
        } else {
          this.blockEntry(ch === "-" ? Kind.BlockSeq : Kind.BlockMap, column, this.pos)
        }
        this.pos++
        this.skipSpaces(true)
        this.keyColumn = this.pos - this.lineStart
        this.closed = undefined
        continue
      } else break
      this.skipSpaces(true)
    }
    const ch = this.text[this.pos]
    switch (ch) {
      case undefined:
        return State.Doc
      case "#":
        this.skipToLineEnd()
        this.newline()
        return State.LineStart
      case "\n":
      case "\r":
        if (this.newline()) return State.LineStart
        this.closed = undefined
        this.plainScalar()
        return State.Doc
      case "[":
      case "{":
        this.push(ch === "[" ? Kind.FlowSeq : Kind.FlowMap, -1, this.pos)
        this.pos++
        this.flowKey = false
        this.flowLevel = 1
        this.closed = undefined
        return State.Flow
      case "]":
      case "}":
        this.pos++ // an error: the parser reports it
        this.closed = undefined
        return State.Doc
      case "*":
        this.skipAnchor()
        this.closed = undefined
        return State.Doc
      case '"':
      case "'":
        this.quotedScalar()
        this.closed = undefined
        return State.Doc
      case "|":
      case ">":
        this.blockScalar()
        this.closed = undefined
        return State.LineStart
      default:
        this.plainScalar()
        this.closed = undefined
        return State.Doc
    }
  }

  flow(): State {
    let indent = -1
    for (;;) {
      if (this.newline()) {
        indent = this.skipSpaces(false)
        this.indentValue = indent
        this.skipSpaces(true)
      } else if (this.skipSpaces(true) === 0) break
    }
    const first = this.text[this.pos]
    if (first === undefined) return State.Flow
    if (
      (indent !== -1 && indent < this.indentNext && first !== "#") ||
      (indent === 0 && this.isDocumentMarker(this.pos))
    ) {
      const atFlowEndMarker = indent === this.indentNext - 1 && this.flowLevel === 1 && (first === "]" || first === "}")
      if (!atFlowEndMarker) {
        // An unindented line ends every open flow collection (an error the parser reports) and is read as block
        // structure, as the lexer does.
        this.closeAllFlow()
        this.closed = undefined
        if (indent === 0 && this.isDocumentMarker(this.pos)) return State.LineStart
        this.indentValue = 0
        return this.afterIndentation(indent)
      }
    }
    while (this.text[this.pos] === ",") {
      this.pos++
      this.skipSpaces(true)
      this.flowKey = false
      this.endFlowEntry()
      this.closed = undefined
    }
    for (;;) {
      const ch = this.text[this.pos]
      if (ch === "!" || ch === "&") {
        this.startEntry()
        if (ch === "!") this.skipTag()
        else this.skipAnchor()
      } else if (
        (ch === "-" || ch === "?" || ch === ":") &&
        (isEmpty(this.text[this.pos + 1]) || isFlowIndicator(this.text[this.pos + 1]))
      ) {
        if (this.flowKey) this.flowKey = false
        if (ch === "?") this.flowExplicitKey(this.pos)
        else if (ch === ":") this.flowValue(this.pos)
        // `-` has no meaning in a flow collection; the parser's recovery nests a level for it (`[- a]`).
        else this.implicitPair(this.pos, true)
        this.pos++
      } else break
      this.skipSpaces(true)
    }
    const ch = this.text[this.pos]
    // The end of the line: the next round reads the line break and the next line's indentation.
    if (ch === undefined || ch === "\n" || (ch === "\r" && this.text[this.pos + 1] === "\n")) return State.Flow
    if (ch !== "#" && ch !== "]" && ch !== "}" && ch !== "," && ch !== "[" && ch !== "{") this.startEntry()
    switch (ch) {
      case "#":
        this.skipToLineEnd()
        return State.Flow
      case "[":
      case "{":
        this.collectionAfterNode()
        this.push(ch === "[" ? Kind.FlowSeq : Kind.FlowMap, -1, this.pos)
        this.pos++
        this.flowKey = false
        this.flowLevel += 1
        this.closed = undefined
        return State.Flow
      case "]":
      case "}":
        this.pos++
        this.flowKey = true
        this.flowLevel -= 1
        this.closed = this.closeFlow()
        return this.flowLevel > 0 ? State.Flow : State.Doc
      case "*":
        this.skipAnchor()
        this.closed = undefined
        return State.Flow
      case '"':
      case "'":
        this.flowKey = true
        this.quotedScalar()
        this.closed = undefined
        return State.Flow
      case ":": {
        const next = this.text[this.pos + 1]
        if (this.flowKey || isEmpty(next) || next === ",") {
          this.flowKey = false
          this.flowValue(this.pos)
          this.pos++
          this.skipSpaces(true)
          return State.Flow
        }
        this.flowKey = false
        this.plainScalar()
        this.closed = undefined
        return State.Flow
      }
      default:
        this.flowKey = false
        this.plainScalar()
        this.closed = undefined
        return State.Flow
    }
  }
}

/**
 * Scans YAML text for how deep it nests, stopping at the first collection that opens level `maxDepth + 1`.
 * One pass, no allocation per character; the count errs on the side of more levels for malformed input.
 */
export const scanNesting = (text: string, maxDepth: number): NestingScan => {
  const scanner = new Scanner(text, maxDepth)
  try {
    scanner.run()
    return { depth: scanner.deepest, exceededAt: undefined }
  } catch (error) {
    if (error instanceof TooDeep) return { depth: scanner.deepest, exceededAt: error.offset }
    throw error
  }
}
