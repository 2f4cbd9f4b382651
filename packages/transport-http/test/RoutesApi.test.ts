import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request, sendYaml } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

const routeFile = `
app:
  host: 127.0.0.1
  port: 8080
db:
  scheme: tcp
  port: "5433:5432"
  bind: 127.0.0.1
`

const scoped = <A, E>(effect: Effect.Effect<A, E, import("effect").Scope.Scope>) => Effect.scoped(effect)

describe("POST /route/validate", () => {
  it.live("answers 200 with every route normalized (map form, application/yaml)", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, routeFile)
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.json.valid, true)
        const [app, db] = reply.json.routes
        assert.deepStrictEqual([app.alias, app.scheme, app.port], ["app", "http", { listening: 0, target: 8080 }])
        assert.deepStrictEqual(db.listener, { network: "tcp4", address: "127.0.0.1", port: 5433 })
      })
    )
  )

  it.live("accepts one route with `alias` as text/plain", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, "alias: Web\nport: 443\n", {
          contentType: "text/plain"
        })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual([reply.json.routes[0].alias, reply.json.routes[0].scheme], ["web", "https"])
      })
    )
  )

  it.live("answers 422 validation_failed with every problem, each with path, line and column", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(
          `${h.baseUrl}/route/validate`,
          h.apiKey,
          "app:\n  port: 70000\n  bind: not-an-ip\n  helthcheck: {}\n"
        )
        assert.strictEqual(reply.status, 422)
        assert.strictEqual(reply.json.error.code, "validation_failed")
        const details = reply.json.error.details as Array<{ path: Array<string>; message: string; line: number }>
        assert.isAtLeast(details.length, 3)
        for (const d of details) {
          assert.strictEqual(d.path[0], "app")
          assert.isNumber(d.line)
        }
        assert.isTrue(details.some((d) => d.message.includes("did you mean `healthcheck`")))
      })
    )
  )

  it.live("answers 400 with line and column for malformed YAML", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, "app:\n  port: [8080\n  host: x\n")
        assert.strictEqual(reply.status, 400)
        assert.strictEqual(reply.json.error.code, "invalid_yaml")
        assert.isNumber(reply.json.error.details[0].line)
        assert.isNumber(reply.json.error.details[0].column)
      })
    )
  )

  it.live("refuses an alias bomb with 400 instead of expanding it", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
        for (let i = 1; i < 10; i++) {
          const prev = String.fromCharCode(96 + i)
          const name = String.fromCharCode(97 + i)
          levels.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(", ")}]`)
        }
        const reply = yield* sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, `${levels.join("\n")}\n`)
        assert.strictEqual(reply.status, 400)
        assert.match(reply.json.error.details[0].message, /alias/)
      })
    )
  )

  it.live("answers 413 for a 10 MB body without reading it, and stays up", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, `# ${"x".repeat(10 * 1024 * 1024)}\n`)
        assert.strictEqual(reply.status, 413)
        assert.strictEqual(reply.json.error.code, "payload_too_large")
        const after = yield* request(`${h.baseUrl}/version`)
        assert.strictEqual(after.status, 200)
      })
    )
  )

  it.live("answers 413 for a chunked body that grows past the limit", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ maxBodyBytes: 1024 })
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode(`# ${"y".repeat(500)}\n`))
            controller.close()
          }
        })
        const response = yield* Effect.promise(() =>
          fetch(`${h.baseUrl}/route/validate`, {
            method: "POST",
            headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/yaml" },
            body,
            duplex: "half"
          } as RequestInit)
        )
        assert.strictEqual(response.status, 413)
        assert.strictEqual(((yield* Effect.promise(() => response.json())) as any).error.code, "payload_too_large")
      })
    )
  )

  it.live("answers 415 with the shared error body for an unsupported content type", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(`${h.baseUrl}/route/validate`, h.apiKey, "{}", {
          contentType: "application/json"
        })
        assert.strictEqual(reply.status, 415)
        assert.strictEqual(reply.json.error.code, "unsupported_media_type")
        assert.strictEqual(
          reply.json.error.message,
          "unsupported content type application/json: send application/yaml or text/plain"
        )
      })
    )
  )

  it.live("a 415 names the content types this endpoint takes (a JSON endpoint asks for JSON)", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* request(`${h.baseUrl}/apikeys`, {
          method: "POST",
          key: h.apiKey,
          contentType: "text/plain",
          body: JSON.stringify({ name: "k3", scopes: ["health:read"] })
        })
        assert.strictEqual(reply.status, 415, reply.text)
        assert.deepStrictEqual(reply.json.error, {
          code: "unsupported_media_type",
          message: "unsupported content type text/plain: send application/json"
        })
        const form = yield* request(`${h.baseUrl}/auth/login`, {
          method: "POST",
          key: null,
          contentType: "text/yaml; charset=utf-8",
          body: "username: a"
        })
        assert.strictEqual(form.status, 415, form.text)
        assert.strictEqual(
          form.json.error.message,
          "unsupported content type text/yaml; charset=utf-8: send application/json or application/x-www-form-urlencoded"
        )
      })
    )
  )

  it.live("rejects unknown query parameters with 400", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* sendYaml(`${h.baseUrl}/route/validate?strict=true`, h.apiKey, routeFile)
        assert.strictEqual(reply.status, 400)
        assert.deepStrictEqual(reply.json.error.details[0].path, ["query", "strict"])
      })
    )
  )

  it.live("rejects unknown fields of a JSON body with 400, and does nothing (a typo'd expiry makes no key)", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* request(`${h.baseUrl}/apikeys`, {
          method: "POST",
          key: h.apiKey,
          contentType: "application/json",
          body: JSON.stringify({ name: "typo", scopes: ["admin"], expires_in: 3600 })
        })
        assert.strictEqual(reply.status, 400, reply.text)
        assert.strictEqual(reply.json.error.code, "invalid_argument")
        assert.deepStrictEqual(reply.json.error.details[0].path, ["body", "expires_in"])
        const keys = yield* request(`${h.baseUrl}/apikeys`, { key: h.apiKey })
        assert.notInclude(
          keys.json.map((k: { name: string }) => k.name),
          "typo"
        )
      })
    )
  )

  it.live("every answer, success or error, tells browsers not to sniff its type (nosniff)", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        for (const reply of [
          yield* request(`${h.baseUrl}/route/list`, { key: h.apiKey }),
          yield* request(`${h.baseUrl}/route/list`),
          yield* request(`${h.baseUrl}/no/such/endpoint`, { key: h.apiKey })
        ]) {
          assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff", String(reply.status))
        }
      })
    )
  )

  it.live("requires an API key (401) and refuses a wrong one", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const none = yield* request(`${h.baseUrl}/route/list`)
        assert.strictEqual(none.status, 401)
        assert.strictEqual(none.json.error.code, "unauthenticated")
        const wrong = yield* request(`${h.baseUrl}/route/list`, { key: `${h.apiKey.slice(0, -4)}AAAA` })
        assert.strictEqual(wrong.status, 401)
        const junk = yield* request(`${h.baseUrl}/route/list`, { key: "not-a-key" })
        assert.strictEqual(junk.status, 401)
      })
    )
  )
})

describe("GET /route/list and /route/{alias}", () => {
  it.live("lists the active routes with provider, excluded and health", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({
          routeFiles: { "main.yml": routeFile },
          health: { app: { status: "healthy", latency_ms: 3, uptime_s: 10, last_check: "2026-01-01T00:00:00.000Z" } }
        })
        const reply = yield* request(`${h.baseUrl}/route/list`, { key: h.apiKey })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(
          reply.json.map((r: any) => [r.alias, r.provider, r.excluded, r.health.status]),
          [
            ["app", "file:main.yml", false, "healthy"],
            ["db", "file:main.yml", false, "unknown"]
          ]
        )
      })
    )
  )

  it.live("returns one route, or 404 not_found naming it", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "main.yml": routeFile } })
        const found = yield* request(`${h.baseUrl}/route/db`, { key: h.apiKey })
        assert.strictEqual(found.status, 200)
        assert.strictEqual(found.json.scheme, "tcp")
        const missing = yield* request(`${h.baseUrl}/route/nope`, { key: h.apiKey })
        assert.strictEqual(missing.status, 404)
        assert.deepStrictEqual(missing.json.error, {
          code: "not_found",
          message: 'route "nope" not found',
          details: [{ reason: "RouteNotFound", alias: "nope" }]
        })
      })
    )
  )

  it.live("refuses a malformed alias with 400, saying what an alias is (not a regular expression)", () =>
    scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* request(`${h.baseUrl}/route/Bad%20Alias!`, { key: h.apiKey })
        assert.strictEqual(reply.status, 400)
        assert.deepStrictEqual(reply.json.error.details[0].path, ["path", "alias"])
        assert.strictEqual(
          reply.json.error.details[0].message,
          "expected a route alias: lowercase letters, digits, '.' and '-', starting and ending with a letter or " +
            "digit, at most 253 characters, optionally after '*.'"
        )
        const events = yield* request(`${h.baseUrl}/events?category=Config`, { key: h.apiKey })
        assert.strictEqual(events.status, 400)
        assert.strictEqual(
          events.json.error.details[0].message,
          "expected an event category: 1 to 64 lowercase letters, digits or '_' (such as config or health)"
        )
      })
    )
  )

  it.live("serves aliases up to the longest valid one (253 characters), and refuses longer ones with 400", () =>
    scoped(
      Effect.gen(function* () {
        const long = ["a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(61)].join(".")
        assert.strictEqual(long.length, 253)
        const medium = "m".repeat(150)
        const h = yield* startHarness({ routeFiles: { "long.yml": `${long}:\n  port: 81\n${medium}:\n  port: 82\n` } })
        for (const alias of [long, medium]) {
          const found = yield* request(`${h.baseUrl}/route/${alias}`, { key: h.apiKey })
          assert.strictEqual(found.status, 200, `${alias.length} characters`)
          assert.strictEqual(found.json.alias, alias)
        }
        const tooLong = yield* request(`${h.baseUrl}/route/${"x".repeat(254)}`, { key: h.apiKey })
        assert.strictEqual(tooLong.status, 400)
        assert.deepStrictEqual(tooLong.json.error.details[0].path, ["path", "alias"])
      })
    )
  )
})
