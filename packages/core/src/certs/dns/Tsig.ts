import { createHmac, timingSafeEqual } from "node:crypto"
import { DnsClass, DnsType, encodeName } from "./DnsWire.js"

// TSIG (RFC 8945): a shared-key HMAC over a DNS message, appended as the last record of its additional section.

/** The HMAC algorithms of RFC 8945 §6 Gatehouse supports, by their DNS names. */
export const TsigAlgorithms = {
  "hmac-sha256": "sha256",
  "hmac-sha384": "sha384",
  "hmac-sha512": "sha512"
} as const
export type TsigAlgorithm = keyof typeof TsigAlgorithms

/** A TSIG key: its name (as the server knows it), algorithm and secret (the raw bytes, decoded from base64). */
export interface TsigKey {
  readonly name: string
  readonly algorithm: TsigAlgorithm
  readonly secret: Buffer
}

/** Allowed clock difference between signer and verifier (RFC 8945 §5.2.3 recommends 300 s). */
export const fudgeSeconds = 300

/** TSIG error codes (RFC 8945 §3, RFC 2845), by value. */
const tsigErrors: Readonly<Record<number, string>> = { 16: "BADSIG", 17: "BADKEY", 18: "BADTIME", 22: "BADTRUNC" }

/** The name of a TSIG error code (`BADSIG`, ...), or the number. */
export const tsigErrorName = (code: number): string => tsigErrors[code] ?? String(code)

const u16 = (value: number) => {
  const buf = Buffer.alloc(2)
  buf.writeUInt16BE(value)
  return buf
}

const u48 = (value: number) => {
  const buf = Buffer.alloc(6)
  buf.writeUIntBE(value, 0, 6)
  return buf
}

/** The TSIG variables of RFC 8945 §4.3.3 that are MACed after the message. */
const variables = (key: TsigKey, timeSigned: number, fudge: number, error: number, other: Buffer) =>
  Buffer.concat([
    encodeName(key.name),
    u16(DnsClass.ANY),
    Buffer.alloc(4), // TTL 0
    encodeName(key.algorithm),
    u48(timeSigned),
    u16(fudge),
    u16(error),
    u16(other.length),
    other
  ])

const hmac = (key: TsigKey, ...parts: ReadonlyArray<Buffer>) => {
  const mac = createHmac(TsigAlgorithms[key.algorithm], key.secret)
  for (const part of parts) mac.update(part)
  return mac.digest()
}

/**
 * Signs `message` (a complete DNS message without TSIG) at `timeSigned` (Unix seconds): appends the TSIG record and
 * counts it in ARCOUNT. Returns the signed message and its MAC, which the response's MAC covers.
 */
export const signMessage = (
  message: Buffer,
  key: TsigKey,
  timeSigned: number
): { readonly signed: Buffer; readonly mac: Buffer } => {
  const mac = hmac(key, message, variables(key, timeSigned, fudgeSeconds, 0, Buffer.alloc(0)))
  const rdata = Buffer.concat([
    encodeName(key.algorithm),
    u48(timeSigned),
    u16(fudgeSeconds),
    u16(mac.length),
    mac,
    message.subarray(0, 2), // original ID
    u16(0), // error
    u16(0) // other len
  ])
  const record = Buffer.concat([
    encodeName(key.name),
    u16(DnsType.TSIG),
    u16(DnsClass.ANY),
    Buffer.alloc(4),
    u16(rdata.length),
    rdata
  ])
  const signed = Buffer.concat([message, record])
  signed.writeUInt16BE(message.readUInt16BE(10) + 1, 10)
  return { signed, mac }
}

/** The TSIG record of a response, read from its end (a TSIG record is last and its names are never compressed). */
export interface ResponseTsig {
  readonly keyName: string
  readonly algorithm: string
  readonly timeSigned: number
  readonly fudge: number
  readonly mac: Buffer
  readonly originalId: number
  readonly error: number
  readonly other: Buffer
  /** Where the record starts in the response. */
  readonly offset: number
}

const readName = (buf: Buffer, start: number): { readonly name: string; readonly end: number } => {
  const labels: Array<string> = []
  let at = start
  for (;;) {
    const length = buf[at]
    if (length === undefined || length > 63) throw new RangeError("bad name in TSIG record")
    at += 1
    if (length === 0) break
    labels.push(
      buf
        .subarray(at, at + length)
        .toString("ascii")
        .toLowerCase()
    )
    at += length
  }
  return { name: labels.join("."), end: at }
}

/**
 * Parses the TSIG record a response ends with, given the record's owner name length and its RDATA (both from a
 * decoder that already walked the message). Throws `RangeError` on a malformed record.
 */
export const readResponseTsig = (response: Buffer, rdata: Buffer, keyName: string): ResponseTsig => {
  const offset = response.length - (encodeName(keyName).length + 10 + rdata.length)
  const algorithm = readName(rdata, 0)
  let at = algorithm.end
  const timeSigned = rdata.readUIntBE(at, 6)
  const fudge = rdata.readUInt16BE(at + 6)
  const macSize = rdata.readUInt16BE(at + 8)
  at += 10
  const mac = rdata.subarray(at, at + macSize)
  at += macSize
  const originalId = rdata.readUInt16BE(at)
  const error = rdata.readUInt16BE(at + 2)
  const otherLength = rdata.readUInt16BE(at + 4)
  const other = rdata.subarray(at + 6, at + 6 + otherLength)
  if (offset < 12 || at + 6 + otherLength !== rdata.length) throw new RangeError("malformed TSIG record")
  return {
    keyName: readName(response, offset).name,
    algorithm: algorithm.name,
    timeSigned,
    fudge,
    mac,
    originalId,
    error,
    other,
    offset
  }
}

/**
 * Checks a signed response to a request whose MAC was `requestMac` (RFC 8945 §5.3): the MAC over the request MAC,
 * the response without its TSIG record (original ID, ARCOUNT less one) and the TSIG variables, and the time within
 * the fudge of `now` (Unix seconds). Returns a problem in words, or `undefined` when it verifies.
 */
export const verifyResponse = (
  response: Buffer,
  tsig: ResponseTsig,
  key: TsigKey,
  requestMac: Buffer,
  now: number
): string | undefined => {
  if (tsig.error !== 0) return `the server answered TSIG error ${tsigErrorName(tsig.error)}`
  if (tsig.keyName !== key.name.toLowerCase().replace(/\.$/, ""))
    return `the response is signed with key ${tsig.keyName}`
  if (tsig.algorithm !== key.algorithm) return `the response is signed with ${tsig.algorithm}`
  const unsigned = Buffer.from(response.subarray(0, tsig.offset))
  unsigned.writeUInt16BE(tsig.originalId, 0)
  unsigned.writeUInt16BE(unsigned.readUInt16BE(10) - 1, 10)
  const expected = hmac(
    key,
    u16(requestMac.length),
    requestMac,
    unsigned,
    variables(key, tsig.timeSigned, tsig.fudge, tsig.error, tsig.other)
  )
  if (tsig.mac.length !== expected.length || !timingSafeEqual(tsig.mac, expected)) {
    return "the response's TSIG signature does not verify"
  }
  if (Math.abs(now - tsig.timeSigned) > tsig.fudge) return "the response's TSIG time is outside the allowed fudge"
  return undefined
}
