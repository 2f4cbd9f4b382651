// DNS wire format (RFC 1035 §4) for the few messages Gatehouse sends: a dynamic update (RFC 2136) and a TXT query.
// Written here rather than with dns-packet's encoder, which has no class NONE (254), the class RFC 2136 §2.5.4 uses
// to delete one record. Responses are decoded with dns-packet.

/** Record types and classes used here. */
export const DnsType = { TXT: 16, SOA: 6, TSIG: 250 } as const
export const DnsClass = { IN: 1, NONE: 254, ANY: 255 } as const

/** Opcode UPDATE (RFC 2136 §1) in the header's flags. */
const OPCODE_UPDATE = 5 << 11
/** Recursion desired, for a query. */
const FLAG_RD = 1 << 8

/** A domain name in canonical wire form: lower-case labels, each with its length, then the root (uncompressed). */
export const encodeName = (name: string): Buffer => {
  const labels = name
    .toLowerCase()
    .replace(/\.$/, "")
    .split(".")
    .filter((label) => label !== "")
  const parts = labels.map((label) => {
    const bytes = Buffer.from(label, "ascii")
    if (bytes.length > 63) throw new RangeError(`DNS label longer than 63 bytes: ${label}`)
    return Buffer.concat([Buffer.from([bytes.length]), bytes])
  })
  return Buffer.concat([...parts, Buffer.from([0])])
}

const u16 = (value: number) => {
  const buf = Buffer.alloc(2)
  buf.writeUInt16BE(value)
  return buf
}

const u32 = (value: number) => {
  const buf = Buffer.alloc(4)
  buf.writeUInt32BE(value)
  return buf
}

const header = (id: number, flags: number, counts: readonly [number, number, number, number]) =>
  Buffer.concat([u16(id), u16(flags), ...counts.map(u16)])

/** TXT RDATA: the value in character-strings of at most 255 bytes (RFC 1035 §3.3.14). */
export const txtRdata = (value: string): Buffer => {
  const bytes = Buffer.from(value, "utf8")
  const chunks: Array<Buffer> = []
  for (let offset = 0; offset < bytes.length || chunks.length === 0; offset += 255) {
    const chunk = bytes.subarray(offset, offset + 255)
    chunks.push(Buffer.concat([Buffer.from([chunk.length]), chunk]))
  }
  return Buffer.concat(chunks)
}

/** One resource record. */
export const resourceRecord = (name: string, type: number, klass: number, ttl: number, rdata: Buffer): Buffer =>
  Buffer.concat([encodeName(name), u16(type), u16(klass), u32(ttl), u16(rdata.length), rdata])

/** A TXT change of an update: add the record (with its TTL) or delete exactly that record (class NONE, TTL 0). */
export interface TxtChange {
  readonly action: "add" | "delete"
  readonly name: string
  readonly value: string
  readonly ttl: number
}

/** An RFC 2136 UPDATE of `zone` with the given TXT changes and no prerequisites. */
export const updateMessage = (id: number, zone: string, changes: ReadonlyArray<TxtChange>): Buffer =>
  Buffer.concat([
    header(id, OPCODE_UPDATE, [1, 0, changes.length, 0]),
    encodeName(zone),
    u16(DnsType.SOA),
    u16(DnsClass.IN),
    ...changes.map((change) =>
      change.action === "add"
        ? resourceRecord(change.name, DnsType.TXT, DnsClass.IN, change.ttl, txtRdata(change.value))
        : resourceRecord(change.name, DnsType.TXT, DnsClass.NONE, 0, txtRdata(change.value))
    )
  ])

/** A query for the TXT records of `name` (no recursion asked: the server is authoritative). */
export const txtQuery = (id: number, name: string, recursion = false): Buffer =>
  Buffer.concat([
    header(id, recursion ? FLAG_RD : 0, [1, 0, 0, 0]),
    encodeName(name),
    u16(DnsType.TXT),
    u16(DnsClass.IN)
  ])
