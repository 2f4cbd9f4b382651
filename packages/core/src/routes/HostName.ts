import { ipFamily } from "./IpAddress.js"

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/

const show = (text: string) => JSON.stringify(text)

/**
 * Why `text` is not a usable target host, or `undefined` when it is: an IPv4 or IPv6 literal (IPv6 without
 * brackets), or a hostname by RFC 1123 — dot-separated labels of 1–63 letters, digits and `-` that neither start
 * nor end with `-`, at most 253 characters. A name of digits and dots only must be a valid IPv4 address.
 */
export const hostProblem = (text: string): string | undefined => {
  if (ipFamily(text) !== undefined) return undefined
  if (text.startsWith("[") && text.endsWith("]") && ipFamily(text.slice(1, -1)) === 6) {
    return `${show(text)}: write IPv6 addresses without brackets (${text.slice(1, -1)})`
  }
  if (/[\s/]|:\/\//.test(text)) {
    return `${show(text)} is not a hostname or IP address (a URL goes in parts: scheme, host, port)`
  }
  if (/^[0-9.]+$/.test(text)) return `${show(text)} is not a valid IPv4 address`
  if (text.length > 253) return `hostname is ${text.length} characters long, over the limit of 253`
  const labels = text.split(".")
  for (const label of labels) {
    if (label === "")
      return `${show(text)} is not a valid hostname: it has an empty label (\`..\` or a leading or trailing \`.\`)`
    if (label.length > 63)
      return `${show(text)} is not a valid hostname: label \`${label.slice(0, 20)}…\` is over 63 characters`
    if (!LABEL.test(label)) {
      return label.startsWith("-") || label.endsWith("-")
        ? `${show(text)} is not a valid hostname: a label must not start or end with \`-\``
        : `${show(text)} is not a valid hostname: labels take only letters, digits and \`-\``
    }
  }
  return undefined
}
