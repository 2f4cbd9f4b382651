import { isSecretKey } from "./SecretKeys.js"

/** Characters of an input a message quotes at most, besides the note of what was left out. */
export const MAX_QUOTED_INPUT = 80

/**
 * An input too long to quote whole, shown as its beginning. Effect's formatter prints an object through its own
 * `toString`, so a message built from an issue whose input is this reads `got ["a","b",… (300 items)]`.
 */
export class InputPreview {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text
  }
}

// Stands in for the value of a secret key inside a preview.
const redacted = Symbol("redacted")

const count = (n: number, noun: string) => `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`

// Renders `value` in JSON-like form into `out` while `budget.left` lasts; returns false when it ran out.
const render = (value: unknown, out: Array<string>, budget: { left: number }): boolean => {
  const write = (text: string) => {
    out.push(text)
    budget.left -= text.length
    return budget.left >= 0
  }
  if (typeof value === "string") {
    if (value.length <= budget.left) return write(JSON.stringify(value))
    const head = JSON.stringify(value.slice(0, Math.max(0, budget.left))).slice(0, -1)
    write(`${head}…" (${count(value.length, "character")})`)
    return false
  }
  if (Array.isArray(value)) {
    if (!write("[")) return false
    for (let i = 0; i < value.length; i++) {
      if ((i > 0 && !write(",")) || !render(value[i], out, budget)) {
        out.push(`,… (${count(value.length, "item")})]`)
        return false
      }
    }
    return write("]")
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
    if (!write("{")) return false
    for (let i = 0; i < entries.length; i++) {
      const [key, inner] = entries[i]!
      const shown = isSecretKey(key) ? redacted : inner
      if ((i > 0 && !write(",")) || !write(`${JSON.stringify(key)}:`) || !render(shown, out, budget)) {
        out.push(`,… (${count(entries.length, "key")})}`)
        return false
      }
    }
    return write("}")
  }
  return write(value === redacted ? "<redacted>" : String(value))
}

/**
 * `value` itself when it is short enough to quote, else an {@link InputPreview} of its first
 * {@link MAX_QUOTED_INPUT} characters, the values of secret keys left out. Effect's messages quote a failed value
 * whole (after YAML aliases are expanded): a 7 KB document of aliases made one message of 450 MB and held the
 * event loop for 20 s.
 */
export const boundedInput = (value: unknown): unknown => {
  if (typeof value !== "object" && typeof value !== "string") return value
  if (value === null || value instanceof InputPreview) return value
  const out: Array<string> = []
  return render(value, out, { left: MAX_QUOTED_INPUT }) ? value : new InputPreview(out.join(""))
}
