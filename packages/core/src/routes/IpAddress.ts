import { isIP } from "node:net"

/** The address family of an IP literal (`4` or `6`), or `undefined` when the text is not one. */
export const ipFamily = (text: string): 4 | 6 | undefined => {
  const family = isIP(text)
  return family === 4 || family === 6 ? family : undefined
}

/** An IP literal in canonical form (`0:0::1` → `::1`), so two spellings of one address compare equal. */
export const canonicalIp = (address: string): string => {
  if (ipFamily(address) !== 6) return address
  const zone = address.indexOf("%")
  const bare = zone === -1 ? address : address.slice(0, zone)
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1)
  return zone === -1 ? canonical : `${canonical}${address.slice(zone)}`
}

/** The "any address" of each family: a listener there overlaps every address of that family. */
export const isWildcardAddress = (address: string): boolean => address === "0.0.0.0" || canonicalIp(address) === "::"

/** Why `text` is not a usable bind address, or `undefined` when it is an IPv4/IPv6 literal. */
export const bindAddressProblem = (text: string): string | undefined => {
  if (ipFamily(text) !== undefined) return undefined
  const unbracketed = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : undefined
  if (unbracketed !== undefined && ipFamily(unbracketed) === 6) {
    return `\`${text}\` is not an IP address: write IPv6 addresses without brackets (\`${unbracketed}\`)`
  }
  return `\`${text}\` is not an IP address: \`bind\` takes an IPv4 or IPv6 literal such as 0.0.0.0, 127.0.0.1 or ::`
}
