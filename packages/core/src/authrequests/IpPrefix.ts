import { isIP } from "node:net"

/** A parsed CIDR prefix: its family, network address as a number, and length. */
export interface IpPrefix {
  readonly text: string
  readonly family: 4 | 6
  readonly network: bigint
  readonly length: number
}

const bitsOf = (family: 4 | 6) => (family === 4 ? 32 : 128)

const parseV4 = (text: string): bigint =>
  text.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number.parseInt(part, 10)), 0n)

const parseV6 = (text: string): bigint => {
  // An embedded dotted quad (`::ffff:1.2.3.4`) is two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  const withoutQuad =
    dotted === null
      ? text
      : `${text.slice(0, dotted.index)}${((parseV4(dotted[1]!) >> 16n) & 0xffffn).toString(16)}:${(parseV4(dotted[1]!) & 0xffffn).toString(16)}`
  const [head, tail] = withoutQuad.includes("::") ? withoutQuad.split("::") : [withoutQuad, undefined]
  const groups = (part: string | undefined) => (part === undefined || part === "" ? [] : part.split(":"))
  const left = groups(head)
  const right = groups(tail)
  const all = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
  return all.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n)
}

/** Parses `a.b.c.d/n` or `x:y::/n`; the host bits are cleared. Undefined when it is not a prefix. */
export const parsePrefix = (text: string): IpPrefix | undefined => {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text)
  if (match === null) return undefined
  const family = isIP(match[1]!)
  if (family !== 4 && family !== 6) return undefined
  const length = Number(match[2])
  const bits = bitsOf(family)
  if (length > bits) return undefined
  const address = family === 4 ? parseV4(match[1]!) : parseV6(match[1]!)
  const hostBits = BigInt(bits - length)
  return { text, family, network: (address >> hostBits) << hostBits, length }
}

/** An address as a number; undefined when the text is not an address of the family. */
export const parseAddress = (text: string, family: 4 | 6): bigint | undefined =>
  isIP(text) !== family ? undefined : family === 4 ? parseV4(text) : parseV6(text)

/** Formats an address: dotted quad, or RFC 5952 IPv6 (lower case, the longest run of zero groups as `::`). */
export const formatAddress = (value: bigint, family: 4 | 6): string => {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => ((value >> shift) & 0xffn).toString()).join(".")
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - i * 16)) & 0xffffn))
  let bestStart = -1
  let bestLength = 1
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength) {
      bestStart = i
      bestLength = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(":")
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`
}

/**
 * The lowest address of the prefix that is not in `used`, skipping the network address (and, for IPv4, the
 * broadcast address). Undefined when every address is taken. Linear in the number of used addresses.
 */
export const firstFreeAddress = (prefix: IpPrefix, used: Iterable<string>): string | undefined => {
  const size = 1n << BigInt(bitsOf(prefix.family) - prefix.length)
  const last = prefix.family === 4 && size > 2n ? size - 2n : size - 1n
  const taken = new Set<bigint>()
  for (const text of used) {
    const value = parseAddress(text, prefix.family)
    if (value !== undefined && value >= prefix.network && value - prefix.network < size) {
      taken.add(value - prefix.network)
    }
  }
  const first = size > 2n ? 1n : 0n
  for (let offset = first; offset <= last; offset++) {
    if (!taken.has(offset)) return formatAddress(prefix.network + offset, prefix.family)
  }
  return undefined
}

/**
 * Whether an address lies in the prefix. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, as a dual-stack socket
 * reports IPv4 peers) is compared as the IPv4 address it carries.
 */
export const prefixContains = (prefix: IpPrefix, address: string): boolean => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  const text = mapped === null ? address : mapped[1]!
  const value = parseAddress(text, prefix.family)
  if (value === undefined) return false
  const hostBits = BigInt(bitsOf(prefix.family) - prefix.length)
  return value >> hostBits === prefix.network >> hostBits
}
