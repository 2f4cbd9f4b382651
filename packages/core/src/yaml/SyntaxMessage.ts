import type { ErrorCode, YAMLError } from "yaml"

// yaml's messages may quote the source they stumbled on ("Block scalar header includes extra characters: |…",
// "Unexpected scalar token in YAML stream: \"…\""), and what they stumble on is often a value written unquoted: a
// password that starts with `|` or `*`, the token after a stray `}`. Those messages reach the config/error event,
// the log and API answers, so no yaml message is passed on unless it is known to hold no source text: its
// parameters are token types, indicator characters or the kind of a flow collection. Anything else is said in our
// own words, by yaml's error code, with the position only.

// yaml's token types (its CST), the words its messages name a token by.
const TOKEN =
  "(?:byte-order-mark|doc-mode|doc-start|space|comment|newline|directive-line|anchor|tag|seq-item-ind|" +
  "explicit-key-ind|map-value-ind|flow-map-start|flow-map-end|flow-seq-start|flow-seq-end|flow-error-end|comma|" +
  "block-scalar-header|error|directive|document|doc-end|alias|scalar|single-quoted-scalar|double-quoted-scalar|" +
  "block-scalar|block-map|block-seq|flow-collection)"
const FLOW = "(?:flow map|flow sequence)"
const INDICATOR = "[-?:]"

const verbatim: ReadonlyArray<RegExp> = [
  "A block sequence may not be used as an implicit map key",
  "A node can have at most one anchor",
  "A node can have at most one tag",
  "All mapping items must start at the same column",
  "All sequence items must start at the same column",
  "An alias node must not specify any properties",
  "Alias cannot be an empty string",
  "Anchor cannot be an empty string",
  "Block collection cannot start on same line with directives-end marker",
  "Block collections are not allowed within flow collections",
  "Block scalar values in collections must be indented",
  "Block scalars with more-indented leading empty lines must use an explicit indentation indicator",
  "Block scalar lines must not be less indented than their (?:first line|explicit indentation indicator)",
  "Comments must be separated from other tokens by white space characters",
  "Flow end indicator should be more indented than parent",
  `(?:Flow map|Flow sequence) must end with a [}\\]]`,
  `(?:Flow map|Flow sequence) in block collection must be sufficiently indented and end with a [}\\]]`,
  "Implicit keys need to be on a single line",
  "Implicit keys of flow sequence pairs need to be on a single line",
  "Implicit map keys need to be followed by map values",
  "Missing closing 'quote",
  'Missing closing "quote',
  "Missing directives-end indicator line",
  "Missing directives-end/doc-start indicator line",
  "Nested mappings are not allowed in compact mappings",
  "Sequence item without - indicator",
  "Tabs are not allowed as indentation",
  "Tags and anchors must be separated from the next token by white space",
  "The : indicator must be at most 1024 chars after the start of an implicit (?:block mapping|flow sequence) key",
  "Unexpected block-seq-ind on same line with key",
  "Unexpected doc-end without preceding document",
  "%YAML directive should contain exactly one part",
  "%TAG directive should contain exactly two parts",
  `Anchors and tags must be after the ${INDICATOR} indicator`,
  `Expected a flow scalar value, but found: ${TOKEN}`,
  `Missing , between ${FLOW} items`,
  `Missing , or : between ${FLOW} items`,
  `Missing space after : in ${FLOW}`,
  `Unexpected , in ${FLOW}`,
  `Unexpected ${INDICATOR} in (?:collection|${FLOW})`,
  `Unexpected empty item in ${FLOW}`,
  `Unexpected ${TOKEN} at node end`,
  `Unexpected ${TOKEN} token`,
  `Unexpected token in block scalar header: ${TOKEN}`,
  `Unexpected ${TOKEN} token in YAML (?:stream|document)`
].map((pattern) => new RegExp(`^${pattern}$`))

// The parser's own errors come as `<message>: <the token's source, as JSON>`; the message before it is kept.
const QUOTED_TOKEN = /^([^"]*): ".*"$/s

// yaml's messages that quote the source, said without it (with what usually causes them).
const reworded: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^Block scalar header includes extra characters/,
    "a block scalar header (`|` or `>`) followed by other characters: a value that starts with `|` or `>` must be quoted"
  ],
  [
    /^Plain value cannot start with/,
    "a plain value cannot start with an indicator character (such as `|`, `>`, `@`, a backquote, `%` or `,`): quote the value"
  ],
  [/^Invalid escape sequence/, "an invalid escape sequence in a double-quoted string (write a backslash as `\\\\`)"]
]

// In our words, by code, when the message may quote the source.
const byCode: Record<ErrorCode, string> = {
  ALIAS_PROPS: "an alias cannot have an anchor or a tag",
  BAD_ALIAS: "an anchor or alias without a valid name",
  BAD_COLLECTION_TYPE: "a tag that does not fit the collection it is on",
  BAD_DIRECTIVE: "a %YAML or %TAG directive that is not valid",
  BAD_DQ_ESCAPE: "an invalid escape sequence in a double-quoted string",
  BAD_INDENT: "bad indentation",
  BAD_PROP_ORDER: "an anchor or tag in the wrong place",
  BAD_SCALAR_START: "a plain value cannot start with this character: quote the value",
  BLOCK_AS_IMPLICIT_KEY: "a block collection used as a key",
  BLOCK_IN_FLOW: "a block collection inside a flow collection",
  DUPLICATE_KEY: "a key written twice in one mapping",
  IMPOSSIBLE: "malformed YAML",
  KEY_OVER_1024_CHARS: "an implicit key longer than 1024 characters",
  MISSING_CHAR: "a character is missing here (a closing quote or bracket, a `:` or a `,`)",
  MULTILINE_IMPLICIT_KEY: "an implicit key must be on a single line",
  MULTIPLE_ANCHORS: "a node can have at most one anchor",
  MULTIPLE_DOCS: "expected a single YAML document but found several (separated by `---`)",
  MULTIPLE_TAGS: "a node can have at most one tag",
  NON_STRING_KEY: "a key that is not a string",
  RESOURCE_EXHAUSTION: "the document is too complex to read",
  TAB_AS_INDENT: "tabs are not allowed as indentation",
  TAG_RESOLVE_FAILED: "a tag (`!…`) that cannot be resolved, or a value that does not fit its tag",
  UNEXPECTED_TOKEN: "unexpected text here (a stray bracket or indicator before it, or a value that must be quoted)"
}

/**
 * What to say of a yaml syntax error: yaml's own message when it holds no text of the source, else a message of
 * ours that names the problem only. The caller adds the position.
 */
export const syntaxMessage = (error: YAMLError): string => {
  if (error.code === "MULTIPLE_DOCS") return byCode.MULTIPLE_DOCS
  const message = error.message
  if (verbatim.some((pattern) => pattern.test(message))) return message
  const quoted = QUOTED_TOKEN.exec(message)?.[1]
  if (quoted !== undefined && verbatim.some((pattern) => pattern.test(quoted))) return quoted
  const own = reworded.find(([pattern]) => pattern.test(message))
  return own?.[1] ?? byCode[error.code] ?? "malformed YAML"
}
