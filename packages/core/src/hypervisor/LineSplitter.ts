import { StringDecoder } from "node:string_decoder"

/**
 * The longest line (in UTF-16 code units) delivered whole; a longer one comes in pieces of this size. A log line is
 * far shorter, and a shared follow replays up to 16,000 lines to a late watcher (SharedFollows also bounds that
 * replay by bytes).
 */
export const maxLineChars = 64 * 1024

/**
 * A splitter of command output into lines: UTF-8 decoded across chunk boundaries, `\n` separated, a trailing `\r`
 * removed, lines longer than {@link maxLineChars} cut into pieces.
 */
export const lineSplitter = () => {
  const decoder = new StringDecoder("utf8")
  let carry = ""
  const strip = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line)
  // Pushes the full pieces of `line` that are over the limit onto `into`; returns what is left (at most the limit).
  const pieces = (line: string, into: Array<string>) => {
    let rest = line
    while (rest.length > maxLineChars) {
      into.push(rest.slice(0, maxLineChars))
      rest = rest.slice(maxLineChars)
    }
    return rest
  }
  return {
    push: (chunk: Buffer): Array<string> => {
      const parts = (carry + decoder.write(chunk)).split("\n")
      carry = parts.pop() ?? ""
      const lines: Array<string> = []
      for (const part of parts) {
        const last = pieces(strip(part), lines)
        lines.push(last)
      }
      // An unfinished line is cut too: it must not grow without bound while its newline never comes.
      carry = pieces(carry, lines)
      return lines
    },
    /** The final line when the output did not end with a newline. */
    end: (): Array<string> => {
      const rest = carry + decoder.end()
      carry = ""
      if (rest === "") return []
      const lines: Array<string> = []
      const last = pieces(strip(rest), lines)
      lines.push(last)
      return lines
    }
  }
}
