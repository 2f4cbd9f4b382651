import { describe, expect, it } from "vitest"
import { makeLogDecoder } from "../../src/docker/ContainerLogDecoder.js"

/** One multiplexed frame as the engine sends it: stream byte, three zero bytes, big-endian length, payload. */
const frame = (stream: 1 | 2, payload: string | Buffer) => {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload
  const header = Buffer.alloc(8)
  header[0] = stream
  header.writeUInt32BE(body.length, 4)
  return Buffer.concat([header, body])
}

const ts = "2026-11-24T10:00:00.123456789Z"
// dockerd's log messages: a longer line is stored (and sent) in pieces of this size.
const piece = 16 * 1024

const chunksOf = (bytes: Buffer, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))

describe("makeLogDecoder", () => {
  it("demultiplexes stdout and stderr frames into lines", () => {
    const decoder = makeLogDecoder({ tty: false, timestamps: false })
    const lines = decoder.push(Buffer.concat([frame(1, "out 1\n"), frame(2, "err 1\n"), frame(1, "out 2\n")]))
    expect(lines).toEqual([
      { stream: "stdout", line: "out 1" },
      { stream: "stderr", line: "err 1" },
      { stream: "stdout", line: "out 2" }
    ])
    expect(decoder.end()).toEqual([])
  })

  it("an empty message is no line; a CRLF line loses its CR; a message of several lines gives each", () => {
    const decoder = makeLogDecoder({ tty: false, timestamps: false })
    const lines = decoder.push(
      Buffer.concat([frame(1, ""), frame(1, "dos\r\n"), frame(2, "a\nb\n"), frame(1, "\n"), frame(1, "tail")])
    )
    expect(lines).toEqual([
      { stream: "stdout", line: "dos" },
      { stream: "stderr", line: "a" },
      { stream: "stderr", line: "b" },
      { stream: "stdout", line: "" }
    ])
    expect(decoder.end()).toEqual([{ stream: "stdout", line: "tail" }])
  })

  it("takes frames split anywhere across chunks, byte by byte", () => {
    const decoder = makeLogDecoder({ tty: false, timestamps: false })
    const bytes = Buffer.concat([frame(1, "héllo wörld\n"), frame(2, "ünïcode ✓\n")])
    const lines = [...bytes].flatMap((byte) => decoder.push(Buffer.from([byte])))
    expect(lines.map((l) => [l.stream, l.line])).toEqual([
      ["stdout", "héllo wörld"],
      ["stderr", "ünïcode ✓"]
    ])
  })

  it("re-joins a line the engine split into several messages, and a character split between them", () => {
    const decoder = makeLogDecoder({ tty: false, timestamps: true })
    const long = `${"a".repeat(16 * 1024 - 1)}€${"b".repeat(10)}`
    const bytes = Buffer.from(long, "utf8")
    const cut = 16 * 1024 // inside the 3-byte €
    const first = Buffer.concat([Buffer.from(`${ts} `), bytes.subarray(0, cut)])
    const second = Buffer.concat([Buffer.from("2026-11-24T10:00:00.2Z "), bytes.subarray(cut), Buffer.from("\n")])
    const lines = [...decoder.push(frame(1, first)), ...decoder.push(frame(1, second))]
    expect(lines).toEqual([{ stream: "stdout", timestamp: ts, line: long }])
  })

  it("a message that starts with the rest of a character is joined to it, even with nothing else pending", () => {
    const decoder = makeLogDecoder({ tty: false, timestamps: false })
    const euro = Buffer.from("€", "utf8")
    const lines = [
      ...decoder.push(frame(1, euro.subarray(0, 2))),
      ...decoder.push(frame(1, Buffer.concat([euro.subarray(2), Buffer.from(" ok\n")]))),
      ...decoder.push(frame(1, "next\n"))
    ]
    expect(lines).toEqual([
      { stream: "stdout", line: "€ ok" },
      { stream: "stdout", line: "next" }
    ])
  })

  it("invalid UTF-8 reads the same whether a line comes whole or in pieces", () => {
    const bytes = Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82, 0x63, 0x0a])
    const whole = makeLogDecoder({ tty: false, timestamps: false }).push(frame(1, bytes))
    const pieces = makeLogDecoder({ tty: false, timestamps: false })
    const split = [...pieces.push(frame(1, bytes.subarray(0, 4))), ...pieces.push(frame(1, bytes.subarray(4)))]
    expect(whole).toEqual([{ stream: "stdout", line: bytes.subarray(0, -1).toString("utf8") }])
    expect(split).toEqual(whole)
  })

  it("keeps partial lines per stream and a final line without a newline", () => {
    const decoder = makeLogDecoder({ tty: false, timestamps: false })
    expect(decoder.push(Buffer.concat([frame(1, "par"), frame(2, "e1\ne")]))).toEqual([
      { stream: "stderr", line: "e1" }
    ])
    expect(decoder.push(frame(1, "tial\nlast"))).toEqual([{ stream: "stdout", line: "partial" }])
    expect(decoder.end()).toEqual([
      { stream: "stdout", line: "last" },
      { stream: "stderr", line: "e" }
    ])
  })

  it("reads timestamps per message", () => {
    const decoder = makeLogDecoder({ tty: false, timestamps: true })
    expect(decoder.push(Buffer.concat([frame(1, `${ts} one\n`), frame(2, "2026-11-24T10:00:01Z two\n")]))).toEqual([
      { stream: "stdout", timestamp: ts, line: "one" },
      { stream: "stderr", timestamp: "2026-11-24T10:00:01Z", line: "two" }
    ])
  })

  it("a TTY container's raw output: CRLF lines, times at line starts, all stdout", () => {
    const decoder = makeLogDecoder({ tty: true, timestamps: true })
    const lines = [
      ...decoder.push(Buffer.from(`${ts} prompt$ ls\r\n${ts} fi`)),
      ...decoder.push(Buffer.from("le.txt\r\n"))
    ]
    expect(lines).toEqual([
      { stream: "stdout", timestamp: ts, line: "prompt$ ls" },
      { stream: "stdout", timestamp: ts, line: "file.txt" }
    ])
  })

  it("a TTY with timestamps: the time dockerd puts before each 16 KiB piece of a long line is taken off it", () => {
    // The exact bytes dockerd sends for a 20000-character line, then `short`, of a TTY container.
    const long = "A".repeat(20_000)
    const later = "2026-11-24T10:00:00.2Z"
    const bytes = Buffer.from(`${ts} ${long.slice(0, piece)}${later} ${long.slice(piece)}\r\n${later} short\r\n`)
    const expected = [
      { stream: "stdout", timestamp: ts, line: long },
      { stream: "stdout", timestamp: later, line: "short" }
    ]
    const whole = makeLogDecoder({ tty: true, timestamps: true })
    expect([...whole.push(bytes), ...whole.end()]).toEqual(expected)
    expect(whole.messages()).toBe(3)
    // Chunks cut anywhere, through a time too.
    for (const size of [1, 7, 4096]) {
      const chunked = makeLogDecoder({ tty: true, timestamps: true })
      const lines = chunksOf(bytes, size).flatMap((chunk) => chunked.push(chunk))
      expect([...lines, ...chunked.end()], `chunks of ${size}`).toEqual(expected)
      expect(chunked.messages()).toBe(3)
    }
  })

  it("a TTY with timestamps: a character split at the piece boundary is joined across the time", () => {
    const long = `${"a".repeat(piece - 1)}€${"b".repeat(10)}`
    const utf8 = Buffer.from(long, "utf8")
    const bytes = Buffer.concat([
      Buffer.from(`${ts} `),
      utf8.subarray(0, piece),
      Buffer.from("2026-11-24T10:00:00.2Z "),
      utf8.subarray(piece),
      Buffer.from("\r\n")
    ])
    const decoder = makeLogDecoder({ tty: true, timestamps: true })
    expect(decoder.push(bytes)).toEqual([{ stream: "stdout", timestamp: ts, line: long }])
  })

  it("a TTY: text where no time is (no timestamps asked for, or past a piece without one) stays text", () => {
    const plain = makeLogDecoder({ tty: true, timestamps: false })
    const long = "x".repeat(2 * piece)
    expect([...plain.push(Buffer.from(`${ts} said\r\n${long}\r\n`)), ...plain.end()]).toEqual([
      { stream: "stdout", line: `${ts} said` },
      { stream: "stdout", line: long }
    ])
    // The line of 2 pieces and its end: 3 messages as dockerd stored them, and the first line.
    expect(plain.messages()).toBe(4)
    const timed = makeLogDecoder({ tty: true, timestamps: true })
    expect(timed.push(Buffer.from(`${ts} ${"y".repeat(piece)}not a time\r\n`))).toEqual([
      { stream: "stdout", timestamp: ts, line: `${"y".repeat(piece)}not a time` }
    ])
  })

  it("dropFirstLine leaves out the line of the first message, to its output's newline; the rest is kept", () => {
    const framed = makeLogDecoder({ tty: false, timestamps: false, dropFirstLine: true })
    const lines = framed.push(
      Buffer.concat([frame(1, "end of a long"), frame(2, "err\n"), frame(1, " line\n"), frame(1, "next\n")])
    )
    expect([...lines, ...framed.end()]).toEqual([
      { stream: "stderr", line: "err" },
      { stream: "stdout", line: "next" }
    ])
    expect(framed.messages()).toBe(4)
    const whole = makeLogDecoder({ tty: false, timestamps: true, dropFirstLine: true })
    expect(whole.push(Buffer.concat([frame(2, `${ts} first\n`), frame(2, `${ts} second\n`)]))).toEqual([
      { stream: "stderr", timestamp: ts, line: "second" }
    ])
    const tty = makeLogDecoder({ tty: true, timestamps: true, dropFirstLine: true })
    expect([...tty.push(Buffer.from(`${ts} tail\r\n${ts} next\r\n`)), ...tty.end()]).toEqual([
      { stream: "stdout", timestamp: ts, line: "next" }
    ])
    const endless = makeLogDecoder({ tty: true, timestamps: false, dropFirstLine: true })
    expect([...endless.push(Buffer.from("no newline")), ...endless.end()]).toEqual([])
  })

  it("delivers a line longer than 1 MiB in pieces instead of holding it", () => {
    const decoder = makeLogDecoder({ tty: false, timestamps: false })
    const lines = decoder.push(frame(1, "x".repeat(2.5 * 1024 * 1024)))
    expect(lines.map((l) => l.line.length)).toEqual([1024 * 1024, 1024 * 1024])
    expect(decoder.end().map((l) => l.line.length)).toEqual([0.5 * 1024 * 1024])
  })
})
