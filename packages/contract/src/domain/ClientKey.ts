const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i

/**
 * The key one client's allowances are counted under (sign-in attempts, requests and streams at once): an IPv4
 * address itself, an IPv6 address its /64. A single IPv6 host is usually handed a whole /64 and can speak from
 * any of its 2^64 addresses, so counting per address would give it as many allowances as it likes. An
 * IPv4-mapped IPv6 address counts as its IPv4 address. Anything that is not an IPv6 address is its own key.
 */
export const clientKeyOf = (address: string): string => {
  if (!address.includes(":")) return address
  const mapped = MAPPED_V4.exec(address)
  if (mapped !== null) return mapped[1]!
  const zone = address.indexOf("%")
  const bare = zone === -1 ? address : address.slice(0, zone)
  const halves = bare.split("::")
  if (halves.length > 2) return address
  const groupsOf = (part: string | undefined) =>
    part === undefined || part === ""
      ? []
      : part.split(":").flatMap((group) => (group.includes(".") ? ["0", "0"] : [group]))
  const left = groupsOf(halves[0])
  const right = groupsOf(halves[1])
  const missing = halves.length === 2 ? 8 - left.length - right.length : 0
  const groups = [...left, ...Array<string>(Math.max(0, missing)).fill("0"), ...right]
  if (groups.length !== 8 || groups.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return address
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`
}
