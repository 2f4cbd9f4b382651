import net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PUBLIC_BODY_BYTES } from "../src/middleware/BodyLimits.js"
import { keyWith } from "./support/HarnessKeys.js"
import { request } from "./support/Http.js"
import { type Harness, startHarness } from "./support/TransportHarness.js"

const KiB = 1024
const MiB = 1024 * KiB

/** A connection that sent `head` (and `body`, if any) and keeps the rest of its body back until the scope ends. */
interface RawExchange {
  /** The status line of the answer, failing if none comes within `ms`. */
  readonly statusWithin: (ms: number) => Effect.Effect<string, Error>
  /** Succeeds once the server has closed the connection, failing if it has not within `ms`. */
  readonly closedWithin: (ms: number) => Effect.Effect<void, Error>
}

const rawExchange = (h: Harness, head: string, body = "") =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const url = new URL(h.origin)
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(head + body))
      let received = ""
      const status = new Promise<string>((resolve, reject) => {
        socket.on("data", (chunk) => {
          received += chunk.toString("latin1")
          const end = received.indexOf("\r\n")
          if (end >= 0) resolve(received.slice(0, end))
        })
        socket.on("error", reject)
        socket.on("close", () => reject(new Error(`closed without an answer: ${JSON.stringify(received)}`)))
      })
      const ended = new Promise<void>((resolve) => socket.on("end", () => resolve()))
      // A refusal that is never awaited must not be reported as unhandled.
      status.catch(() => {})
      const exchange: RawExchange = {
        statusWithin: (ms) =>
          Effect.tryPromise({ try: () => status, catch: (e) => e as Error }).pipe(
            Effect.timeoutOrElse({
              duration: ms,
              orElse: () => Effect.fail(new Error(`no answer within ${ms} ms`))
            })
          ),
        closedWithin: (ms) =>
          Effect.promise(() => ended).pipe(
            Effect.timeoutOrElse({
              duration: ms,
              orElse: () => Effect.fail(new Error(`the connection still open after ${ms} ms`))
            })
          )
      }
      return { socket, exchange }
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

const headOf = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`

// A valid route file of `bytes` bytes: one route, then a comment.
const routeFileOf = (bytes: number) => {
  const head = "app:\n  port: 8080\n"
  return `${head}#${"x".repeat(bytes - head.length - 2)}\n`
}

describe("a body is read only once its caller may send it", () => {
  it.live("no credentials: 401 at once, without a byte of the 1 MiB body, and the request's place is freed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // One request in flight per client: a request still waiting for its body would keep the next one out.
        const h = yield* startHarness({ maxConcurrentRequestsPerClient: 1 })
        const withheld = yield* rawExchange(
          h,
          headOf("POST", "/api/v1/auth/requests", { "content-type": "application/json", "content-length": MiB })
        )
        const status = yield* withheld.exchange.statusWithin(1000)
        assert.strictEqual(status, "HTTP/1.1 401 Unauthorized")
        // The body is still withheld on that connection, yet its request is over: the client's next one is served.
        const next = yield* request(`${h.baseUrl}/version`)
        assert.strictEqual(next.status, 200, next.text)
        // And the connection is closed after the answer, rather than held (with its descriptor) for the rest of a
        // body that may never come, until the request timeout.
        yield* withheld.exchange.closedWithin(1000)
      })
    )
  )

  it.live("a key that does not verify: 401 at once; a valid key without the scope: 403 at once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const head = (authorization: string) =>
          headOf("POST", "/api/v1/auth/requests", {
            authorization,
            "content-type": "application/json",
            "content-length": MiB
          })
        const forged = yield* rawExchange(h, head("Bearer gh_nosuchkey_0123456789abcdef0123456789abcdef"))
        assert.strictEqual(yield* forged.exchange.statusWithin(1000), "HTTP/1.1 401 Unauthorized")
        const healthOnly = yield* keyWith(h, "health-only", ["health:read"])
        const unscoped = yield* rawExchange(h, head(`Bearer ${healthOnly}`))
        assert.strictEqual(yield* unscoped.exchange.statusWithin(1000), "HTTP/1.1 403 Forbidden")
      })
    )
  )

  it.live("an authorized caller's body is still read and checked (UTF-8), then served", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const url = `${h.baseUrl}/route/validate`
        const valid = yield* request(url, {
          method: "POST",
          key: h.apiKey,
          body: routeFileOf(40 * KiB),
          contentType: "application/yaml"
        })
        assert.strictEqual(valid.status, 200, valid.text)
        const invalid = yield* request(url, {
          method: "POST",
          key: h.apiKey,
          body: new Uint8Array([0x61, 0x3a, 0x20, 0xff]),
          contentType: "application/yaml"
        })
        assert.strictEqual(invalid.status, 400, invalid.text)
        assert.match(invalid.json.error.message, /not valid UTF-8: invalid byte 0xff at offset 3/)
      })
    )
  )
})

describe("the bodies of endpoints anyone may call", () => {
  it.live(`are at most ${PUBLIC_BODY_BYTES} bytes: 413 by the declared length, before a byte is read`, () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const over = yield* rawExchange(
          h,
          headOf("POST", "/api/v1/auth/login", {
            "content-type": "application/json",
            "content-length": PUBLIC_BODY_BYTES + 1
          })
        )
        assert.strictEqual(yield* over.exchange.statusWithin(1000), "HTTP/1.1 413 Payload Too Large")
        const fetched = yield* request(`${h.baseUrl}/auth/login`, {
          method: "POST",
          contentType: "application/json",
          body: JSON.stringify({ username: "alice", password: "x".repeat(PUBLIC_BODY_BYTES) })
        })
        assert.strictEqual(fetched.status, 413, fetched.text)
        assert.strictEqual(fetched.json.error.message, `request body exceeds the limit of ${PUBLIC_BODY_BYTES} bytes`)
        // A body of the usual size is read and decoded: a misspelt field is named.
        const small = yield* request(`${h.baseUrl}/auth/login`, {
          method: "POST",
          contentType: "application/json",
          body: JSON.stringify({ username: "alice", pasword: "secret" })
        })
        assert.strictEqual(small.status, 400, small.text)
        assert.match(small.json.error.message, /pasword/)
      })
    )
  )

  it.live("sent chunked, are cut with 413 once past the limit", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const chunks = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(`{"username":"alice","password":"`))
            for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode("x".repeat(8 * KiB)))
            controller.enqueue(new TextEncoder().encode(`"}`))
            controller.close()
          }
        })
        const status = yield* Effect.promise(() =>
          fetch(`${h.baseUrl}/auth/login`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: chunks,
            duplex: "half"
          } as RequestInit).then((response) => response.status)
        )
        assert.strictEqual(status, 413)
      })
    )
  )
})

describe("the bytes of the bodies being read", () => {
  it.live("a body that does not fit is refused unread: 429 over its client's share, 503 over the server's", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({
          trustedProxy: () => true,
          bodiesInFlight: { totalBytes: 100 * KiB, perClientBytes: 60 * KiB }
        })
        const validate = (client: string, bytes: number) =>
          headOf("POST", "/api/v1/route/validate", {
            authorization: `Bearer ${h.apiKey}`,
            "x-forwarded-for": client,
            "content-type": "application/yaml",
            "content-length": bytes
          })
        const sendWhole = (client: string, bytes: number) =>
          Effect.scoped(
            Effect.flatMap(rawExchange(h, validate(client, bytes), routeFileOf(bytes)), ({ exchange }) =>
              exchange.statusWithin(5000)
            )
          )
        // Polled until the answer expected, with a deadline: the first body is counted once its headers are read.
        const untilStatus = (client: string, bytes: number, expected: string) => {
          const attempt: Effect.Effect<string, Error> = Effect.flatMap(sendWhole(client, bytes), (status) =>
            status === expected
              ? Effect.succeed(status)
              : Effect.delay(
                  Effect.suspend(() => attempt),
                  20
                )
          )
          return attempt.pipe(
            Effect.timeoutOrElse({
              duration: 5000,
              orElse: () => Effect.fail(new Error(`never answered ${expected}`))
            })
          )
        }

        // 50 KiB announced by client A, and kept back.
        yield* rawExchange(h, validate("10.0.0.1", 50 * KiB))
        // A's next 20 KiB would pass its share of 60 KiB.
        yield* untilStatus("10.0.0.1", 20 * KiB, "HTTP/1.1 429 Too Many Requests")
        // B's 60 KiB fit its share, not what A left of the server's 100 KiB: 503, before a byte is read.
        const refused = yield* rawExchange(h, validate("10.0.0.2", 60 * KiB))
        assert.strictEqual(yield* refused.exchange.statusWithin(1000), "HTTP/1.1 503 Service Unavailable")
        // B's 40 KiB fit: read, validated, answered.
        assert.strictEqual(yield* sendWhole("10.0.0.2", 40 * KiB), "HTTP/1.1 200 OK")
        const answer = yield* request(`${h.baseUrl}/route/validate`, {
          method: "POST",
          key: h.apiKey,
          body: routeFileOf(60 * KiB),
          contentType: "application/yaml",
          headers: { "x-forwarded-for": "10.0.0.3" }
        })
        assert.strictEqual(answer.status, 503, answer.text)
        assert.strictEqual(answer.json.error.code, "unavailable")
        assert.strictEqual(answer.headers.get("retry-after"), "1")
      })
    )
  )

  it.live("a body's bytes are freed when its request ends", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({
          trustedProxy: () => true,
          bodiesInFlight: { totalBytes: 100 * KiB, perClientBytes: 100 * KiB }
        })
        const head = (bytes: number) =>
          headOf("POST", "/api/v1/route/validate", {
            authorization: `Bearer ${h.apiKey}`,
            "x-forwarded-for": "10.0.0.1",
            "content-type": "application/yaml",
            "content-length": bytes
          })
        // Three whole bodies of 80 KiB one after the other: each fits only once the one before it is freed.
        for (let i = 0; i < 3; i++) {
          const status = yield* Effect.scoped(
            Effect.flatMap(rawExchange(h, head(80 * KiB), routeFileOf(80 * KiB)), ({ exchange }) =>
              exchange.statusWithin(5000)
            )
          )
          assert.strictEqual(status, "HTTP/1.1 200 OK")
        }
      })
    )
  )
})
