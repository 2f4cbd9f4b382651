// A request target is printable ASCII (RFC 9112 §3.2, RFC 3986): anything else must be percent-encoded. Node's
// http.request throws on a space, a control character or a character past U+00FF (ERR_UNESCAPED_CHARACTERS), so
// such a path would make every check of the route fail with `error`; the rest it would send as raw bytes.
const isPrintableAscii = (code: number) => code >= 0x21 && code <= 0x7e

const codePointName = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, "0")}`

const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f)

const describe = (char: string): string => {
  const code = char.codePointAt(0)!
  if (char === " ") return "a space"
  if (/\s/u.test(char)) return `a whitespace character (${codePointName(code)})`
  if (isControl(code)) return `a control character (${codePointName(code)})`
  return `\`${char}\` (${codePointName(code)})`
}

const utf8 = new TextEncoder()

/** `path` with every character a request target cannot carry as is percent-encoded, as UTF-8. */
const percentEncoded = (path: string): string =>
  Array.from(path, (char) =>
    isPrintableAscii(char.codePointAt(0)!)
      ? char
      : Array.from(utf8.encode(char), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("")
  ).join("")

/**
 * Why `path` cannot be the path of an HTTP health check, or `undefined` when it can: it must start with `/` and be
 * printable ASCII, so a space or a control character is refused with the percent-encoded path to write instead.
 */
export const healthcheckPathProblem = (path: string): string | undefined => {
  if (!path.startsWith("/")) return `\`${path}\` must start with \`/\``
  const unsendable = Array.from(path).find((char) => !isPrintableAscii(char.codePointAt(0)!))
  return unsendable === undefined
    ? undefined
    : `${describe(unsendable)} is not valid in an HTTP request path: percent-encode it (\`${percentEncoded(path)}\`)`
}
