/**
 * The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or `undefined` when all of `bytes` is valid UTF-8.
 */
export const invalidUtf8Offset = (bytes: Uint8Array): number | undefined => {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i]!
    if (lead < 0x80) {
      i++
      continue
    }
    // The valid range of the second byte narrows after E0, ED, F0 and F4 (overlongs, surrogates, > U+10FFFF).
    let length: number
    let low = 0x80
    let high = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) length = 2
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3
      if (lead === 0xe0) low = 0xa0
      if (lead === 0xed) high = 0x9f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4
      if (lead === 0xf0) low = 0x90
      if (lead === 0xf4) high = 0x8f
    } else return i
    if (i + length > bytes.length) return i
    const second = bytes[i + 1]!
    if (second < low || second > high) return i
    for (let k = 2; k < length; k++) {
      const next = bytes[i + k]!
      if (next < 0x80 || next > 0xbf) return i
    }
    i += length
  }
  return undefined
}
