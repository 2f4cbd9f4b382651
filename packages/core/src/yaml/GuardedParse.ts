import { Composer, type CST, type Document, Lexer, type LineCounter, Parser, YAMLParseError } from "yaml"

/** Options of {@link parseDocumentGuarded}: yaml's document options, and the deepest parser stack allowed. */
export interface GuardedParseOptions {
  readonly lineCounter: LineCounter
  /** The parser's stack holds the document, every open collection and at most one pending token besides. */
  readonly maxStack: number
}

/** The outcome of {@link parseDocumentGuarded}: yaml's document, or where the parser's stack grew too deep. */
export type GuardedParse =
  | { readonly _tag: "Parsed"; readonly document: Document.Parsed }
  | { readonly _tag: "TooDeep"; readonly offset: number }

class StackTooDeep {
  constructor(readonly offset: number) {}
}

/**
 * yaml's `parseDocument` (one document; a second one is the `MULTIPLE_DOCS` error), driven token by token so the
 * depth of the parser's stack is checked after every token. The nesting pre-scan already refuses what it sees
 * nest too deep; this bounds what it cannot see: malformed input whose error recovery in the parser nests
 * collections the scan does not count (fuzzing found such patterns). The parser's work per token grows with its
 * stack (1 MiB of `[` took it 10 s), so stopping it here keeps it linear.
 */
export const parseDocumentGuarded = (text: string, options: GuardedParseOptions): GuardedParse => {
  const parser = new Parser(options.lineCounter.addNewLine)
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false, merge: true, logLevel: "error" })
  function* tokens(): Generator<CST.Token, void> {
    options.lineCounter.addNewLine(0)
    for (const lexeme of new Lexer().lex(text)) {
      const offset = parser.offset
      yield* parser.next(lexeme)
      if (parser.stack.length > options.maxStack) throw new StackTooDeep(offset)
    }
    yield* parser.end()
  }
  let document: Document.Parsed | undefined
  try {
    for (const next of composer.compose(tokens(), true, text.length)) {
      if (document === undefined) document = next
      else {
        const message = "Source contains multiple documents; please use YAML.parseAllDocuments()"
        document.errors.push(new YAMLParseError([next.range[0], next.range[1]], "MULTIPLE_DOCS", message))
        break
      }
    }
  } catch (error) {
    if (error instanceof StackTooDeep) return { _tag: "TooDeep", offset: error.offset }
    throw error
  }
  // `compose(…, forceDoc = true)` always yields a document, an empty one for empty input.
  return { _tag: "Parsed", document: document! }
}
