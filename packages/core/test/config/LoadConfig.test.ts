import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { tempDir } from "../../../../test/support/TempDir.js"
import { envVariables, loadConfig, parseByteSize, parseListenAddress } from "../../src/config/index.js"

const load = (text: string | undefined, env: Record<string, string> = {}, flags = {}) =>
  loadConfig({ file: text === undefined ? undefined : { path: "gatehouse.yml", text }, env, flags, cwd: "/srv/app" })

const issuesOf = (result: ReturnType<typeof load>) => {
  assert.strictEqual(result._tag, "Invalid")
  return result._tag === "Invalid" ? result.issues.map(formatIssue) : []
}

const configOf = (result: ReturnType<typeof load>) => {
  if (result._tag !== "Valid") assert.fail(result.issues.map(formatIssue).join("\n"))
  return result.config
}

describe("loadConfig", () => {
  it("runs on the embedded defaults without a file", () => {
    const config = configOf(load(undefined))
    assert.deepStrictEqual(config.http, {
      host: "127.0.0.1",
      port: 8888,
      maxBodyBytes: 1024 * 1024,
      allowedHosts: ["localhost", "127.0.0.1", "::1"],
      maxRequestsPerClient: 256,
      maxStreamsPerClient: 1000,
      maxStreams: 4000,
      maxQueuedBytesPerClient: 16 * 1024 * 1024,
      maxQueuedBytes: 256 * 1024 * 1024,
      maxConnectionsPerClient: 1256,
      maxConnections: undefined,
      bodiesInFlight: { totalBytes: 64 * 1024 * 1024, perClientBytes: 16 * 1024 * 1024 },
      publicUrl: undefined,
      secureCookies: false,
      trustedProxies: []
    })
    assert.strictEqual(config.grpc.port, 50443)
    assert.deepStrictEqual(config.grpc.limits, {
      callsPerClient: 256,
      streamsPerClient: 1000,
      streams: 4000,
      connectionsPerClient: 1256,
      connections: undefined
    })
    assert.strictEqual(config.dataDir, "/srv/app/data")
    assert.strictEqual(config.routesDir, "/srv/app/routes")
    assert.strictEqual(config.events.history, 1000)
    assert.isUndefined(config.configFile)
  })

  // Pins of the shape they are checked for (a SHA-256 fingerprint, a public key line whose type matches its blob).
  const FINGERPRINT = Array.from({ length: 32 }, () => "AB").join(":")
  const HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINXMR3B8fhRicCxdw2WsSQ24qzlMJ7jglV/k/yQRdKMN"

  it("reads every section of the spec's example shape", () => {
    const config = configOf(
      load(`
http: { addr: "127.0.0.1:9000", max_body: 2MiB }
grpc: { addr: "127.0.0.1:50444", unix_socket: ./data/gatehouse.sock, insecure: true }
data_dir: ./var
routes_dir: /etc/gatehouse/routes
auth:
  users: [{ name: admin, password_hash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA" }]
  session_ttl: 24h
hypervisor:
  clusters:
    - name: pve
      url: https://10.0.0.1:8006
      token_id: root@pam!gatehouse
      secret: 00000000-0000-0000-0000-000000000000
      tls: { fingerprint: "${FINGERPRINT}", insecure: false }
      refresh_interval: 3s
      lookup_concurrency: 3
      ssh: { user: root, port: 22, private_key: /k, nodes: { pve1: { host: 10.0.0.1, host_key: "${HOST_KEY}" } } }
docker:
  hosts:
    - { name: local, url: "unix:///var/run/docker.sock" }
certificates:
  - { name: main, cert: ./certs/cert.pem, key: ./certs/key.pem }
auth_requests: { ttl: 15m, max_pending: 1024, ipv4_prefix: 100.64.0.0/10, ipv6_prefix: "fd7a:115c:a1e0::/48" }
events: { history: 500 }
`)
    )
    assert.strictEqual(config.http.port, 9000)
    assert.strictEqual(config.http.maxBodyBytes, 2 * 1024 * 1024)
    assert.strictEqual(config.dataDir, "/srv/app/var")
    assert.strictEqual(config.routesDir, "/etc/gatehouse/routes")
    assert.strictEqual(config.grpc.unixSocket, "/srv/app/data/gatehouse.sock")
    assert.strictEqual(config.events.history, 500)
    assert.strictEqual(config.file.auth?.session_ttl, 24 * 3600 * 1000)
    assert.isTrue(config.authConfigured)
  })

  it("reads the WebSocket budgets of queued bytes as sizes", () => {
    const config = configOf(load("http:\n  limits: { queued_per_client: 4MiB, queued: 64MiB }\n"))
    assert.strictEqual(config.http.maxQueuedBytesPerClient, 4 * 1024 * 1024)
    assert.strictEqual(config.http.maxQueuedBytes, 64 * 1024 * 1024)
    // One client's budget is at most everyone's; a budget of nothing is refused.
    assert.strictEqual(configOf(load("http:\n  limits: { queued: 1MiB }\n")).http.maxQueuedBytesPerClient, 1024 * 1024)
    assert.deepStrictEqual(issuesOf(load("http:\n  limits: { queued: 0 }\n")), [
      "gatehouse.yml:2:21: http.limits.queued: expected a value greater than or equal to 1, got 0"
    ])
  })

  it("reads the connection caps of both listeners; a client's default follows its streams and requests", () => {
    const capped = configOf(
      load(
        "http:\n  limits: { connections_per_client: 20, connections: 300 }\n" +
          "grpc:\n  limits: { connections_per_client: 5, connections: 50 }\n"
      )
    )
    assert.strictEqual(capped.http.maxConnectionsPerClient, 20)
    assert.strictEqual(capped.http.maxConnections, 300)
    assert.strictEqual(capped.grpc.limits.connectionsPerClient, 5)
    assert.strictEqual(capped.grpc.limits.connections, 50)
    // Each WebSocket or call in flight may be a connection of its own: the cap is never below what they allow.
    const raised = configOf(
      load(
        "http:\n  limits: { streams_per_client: 3000, requests_per_client: 100 }\n" +
          "grpc:\n  limits: { streams_per_client: 2000, calls_per_client: 10 }\n"
      )
    )
    assert.strictEqual(raised.http.maxConnectionsPerClient, 3100)
    assert.strictEqual(raised.grpc.limits.connectionsPerClient, 2010)
    assert.deepStrictEqual(issuesOf(load("grpc:\n  limits: { connections: 0 }\n")), [
      "gatehouse.yml:2:26: grpc.limits.connections: expected a value greater than or equal to 1, got 0"
    ])
    // The schema drives the environment overrides too.
    assert.strictEqual(configOf(load(undefined, { GATEHOUSE_HTTP_LIMITS_CONNECTIONS: "700" })).http.maxConnections, 700)
  })

  it("reads the request bodies' budgets; their defaults grow with max_body, and one too small for a body is refused", () => {
    const MiB = 1024 * 1024
    const set = configOf(load("http:\n  limits: { bodies_in_flight: 8MiB, bodies_in_flight_per_client: 2MiB }\n"))
    assert.deepStrictEqual(set.http.bodiesInFlight, { totalBytes: 8 * MiB, perClientBytes: 2 * MiB })
    // A 32 MiB max_body: the defaults (16 / 64 MiB) would refuse a 20 MiB body every time, with "retry shortly".
    const large = configOf(load("http: { max_body: 32MiB }\n"))
    assert.deepStrictEqual(large.http.bodiesInFlight, { totalBytes: 64 * MiB, perClientBytes: 32 * MiB })
    const huge = configOf(load("http: { max_body: 100MiB }\n"))
    assert.deepStrictEqual(huge.http.bodiesInFlight, { totalBytes: 100 * MiB, perClientBytes: 100 * MiB })
    // One client's share is at most everyone's.
    const total = configOf(load("http:\n  limits: { bodies_in_flight: 4MiB }\n"))
    assert.deepStrictEqual(total.http.bodiesInFlight, { totalBytes: 4 * MiB, perClientBytes: 4 * MiB })
    assert.deepStrictEqual(
      issuesOf(
        load("http:\n  max_body: 4MiB\n  limits: { bodies_in_flight: 2MiB, bodies_in_flight_per_client: 1MiB }\n")
      ),
      [
        "gatehouse.yml:3:31: http.limits.bodies_in_flight: 2 MiB cannot hold one body of http.max_body (4 MiB): set at least that",
        "gatehouse.yml:3:66: http.limits.bodies_in_flight_per_client: 1 MiB cannot hold one body of http.max_body (4 MiB): set at least that"
      ]
    )
    assert.deepStrictEqual(
      configOf(load(undefined, { GATEHOUSE_HTTP_LIMITS_BODIES_IN_FLIGHT_PER_CLIENT: "3MiB" })).http.bodiesInFlight,
      { totalBytes: 64 * MiB, perClientBytes: 3 * MiB }
    )
  })

  it("refuses an http.max_body under 1 KiB: every request with a body, sign-in included, would be refused", () => {
    const refusal = (got: number) =>
      "http.max_body: expected at least 1KiB (a smaller limit refuses every request with a body, sign-in included), " +
      `got ${got}`
    assert.deepStrictEqual(issuesOf(load("http: { max_body: 0 }\n")), [`gatehouse.yml:1:19: ${refusal(0)}`])
    assert.deepStrictEqual(issuesOf(load("http: { max_body: 1023 }\n")), [`gatehouse.yml:1:19: ${refusal(1023)}`])
    assert.deepStrictEqual(issuesOf(load(undefined, { GATEHOUSE_HTTP_MAX_BODY: "0" })), [
      `GATEHOUSE_HTTP_MAX_BODY: ${refusal(0)}`
    ])
    assert.strictEqual(configOf(load("http: { max_body: 1KiB }\n")).http.maxBodyBytes, 1024)
  })

  it("reads the auth requests' create rate and what is kept of expired ones, from the file or a variable", () => {
    const config = configOf(load(undefined, { GATEHOUSE_AUTH_REQUESTS_CREATE_RATE: "0.5" }))
    assert.strictEqual(config.authRequests.createPerSecond, 0.5)
    assert.deepStrictEqual(
      issuesOf(load("auth_requests: { create_rate: 0, create_burst: 0, expired_retention: 1s, expired_max: 0 }\n")).map(
        (issue) => issue.replace(/^gatehouse\.yml:\d+:\d+: /, "").replace(/:.*/, "")
      ),
      [
        "auth_requests.expired_retention",
        "auth_requests.expired_max",
        "auth_requests.create_rate",
        "auth_requests.create_burst"
      ]
    )
  })

  it("reports every problem with the key and its line and column", () => {
    const issues = issuesOf(load("http:\n  adr: 127.0.0.1:1\nevents:\n  history: -1\nlog: { level: verbose }\n"))
    assert.deepStrictEqual(issues, [
      "gatehouse.yml:2:3: http.adr: unknown key `adr` (did you mean `addr`?)",
      "gatehouse.yml:4:12: events.history: expected a value greater than or equal to 0, got -1",
      "gatehouse.yml:5:15: log.level: `verbose` is not one of `debug`, `info`, `warn`, `error`"
    ])
  })

  it("reports malformed YAML with its position", () => {
    const issues = issuesOf(load("http: {addr: 1\n  max_body: [\n"))
    assert.isAbove(issues.length, 0)
    assert.match(issues[0]!, /^gatehouse\.yml:\d+:\d+: /)
  })

  it("lets environment variables override the file and flags override both", () => {
    const text = "http: { addr: 127.0.0.1:9000 }\nevents: { history: 10 }\n"
    const config = configOf(
      load(text, { GATEHOUSE_HTTP_ADDR: "127.0.0.1:9001", GATEHOUSE_EVENTS_HISTORY: "20" }, { http: "127.0.0.1:9002" })
    )
    assert.strictEqual(config.http.port, 9002)
    assert.strictEqual(config.events.history, 20)
  })

  it("takes events.history 0 (no history kept), from the file or a variable", () => {
    assert.strictEqual(configOf(load("events: { history: 0 }\n")).events.history, 0)
    assert.strictEqual(configOf(load(undefined, { GATEHOUSE_EVENTS_HISTORY: "0" })).events.history, 0)
  })

  it("names the variable or flag that set a bad value", () => {
    const issues = issuesOf(load(undefined, { GATEHOUSE_HTTP_MAX_BODY: "lots" }, { grpc: "nope" }))
    assert.deepStrictEqual(issues, [
      'GATEHOUSE_HTTP_MAX_BODY: http.max_body: expected a size such as 1MiB, 512KiB or a number of bytes, got "lots"',
      '--grpc: grpc.addr: expected host:port, e.g. 127.0.0.1:8888 or [::1]:8888, got "nope"'
    ])
  })

  it("blames what a section a variable made lacks on that variable, not on the file's first line", () => {
    const file = "http: { addr: 127.0.0.1:29015 }\n"
    assert.deepStrictEqual(issuesOf(load(file, { GATEHOUSE_AUTH_OIDC_CLIENT_SECRET: "from-vault" })), [
      "GATEHOUSE_AUTH_OIDC_CLIENT_SECRET: auth.oidc.issuer: missing required key `issuer`",
      "GATEHOUSE_AUTH_OIDC_CLIENT_SECRET: auth.oidc.client_id: missing required key `client_id`"
    ])
    assert.deepStrictEqual(
      issuesOf(load(file, { GATEHOUSE_ACME_EMAIL: "ops@example.com", GATEHOUSE_ACME_HTTP01_ADDR: "127.0.0.1:8080" })),
      ["GATEHOUSE_ACME_EMAIL, GATEHOUSE_ACME_HTTP01_ADDR: acme.directory: missing required key `directory`"]
    )
    // A section the file has is the file's to complete: the issue points at it.
    assert.deepStrictEqual(
      issuesOf(load(`${file}auth:\n  oidc: { client_id: g }\n`, { GATEHOUSE_AUTH_OIDC_CLIENT_SECRET: "from-vault" })),
      ["gatehouse.yml:3:3: auth.oidc.issuer: missing required key `issuer`"]
    )
  })

  it("warns about unknown GATEHOUSE_ variables with a hint, and ignores the tooling ones", () => {
    const result = load(undefined, { GATEHOUSE_HTP_ADDR: "x", GATEHOUSE_E2E: "1", GATEHOUSE_CONFIG: "a.yml" })
    assert.strictEqual(result._tag, "Valid")
    if (result._tag === "Valid") {
      assert.deepStrictEqual(result.warnings, [
        "ignoring GATEHOUSE_HTP_ADDR: not a setting; did you mean GATEHOUSE_HTTP_ADDR?"
      ])
    }
  })

  it("offers every scalar key as a variable, and no lists", () => {
    assert.deepStrictEqual(envVariables.get("GATEHOUSE_DATA_DIR"), ["data_dir"])
    assert.deepStrictEqual(envVariables.get("GATEHOUSE_AUTH_REQUESTS_MAX_PENDING"), ["auth_requests", "max_pending"])
    assert.isFalse(envVariables.has("GATEHOUSE_AUTH_USERS"))
    assert.isFalse(envVariables.has("GATEHOUSE_HYPERVISOR_CLUSTERS"))
  })

  it("resolves ${NAME} references and reports unset ones", () => {
    const config = configOf(load("routes_dir: ${ROUTES}/x\ndata_dir: $$HOME\n", { ROUTES: "/r" }))
    assert.strictEqual(config.routesDir, "/r/x")
    assert.strictEqual(config.dataDir, "/srv/app/$HOME")
    const issues = issuesOf(load("routes_dir: ${MISSING}\n"))
    assert.include(issues[0]!, "environment variable MISSING (referenced as ${MISSING}) is not set")
  })

  it("reads an unquoted ${NAME} as YAML reads the value it makes: numbers, booleans and durations work", () => {
    const env = { H: "5000", B: "true", PORT: "29003", TTL: "90s", PW: "0123" }
    const config = configOf(
      load(
        [
          "http:",
          "  addr: 127.0.0.1:${PORT}",
          "grpc:",
          "  insecure: ${B}",
          "events:",
          "  history: ${H}",
          "auth_requests:",
          "  ttl: ${TTL}",
          "  max_pending: 1${H}",
          "hypervisor:",
          "  clusters:",
          "    - name: pve",
          "      url: https://h:8006",
          "      username: u@pam",
          "      password: ${PW}",
          ""
        ].join("\n"),
        env
      )
    )
    assert.strictEqual(config.events.history, 5000)
    assert.isTrue(config.grpc.insecure)
    assert.strictEqual(config.http.port, 29003)
    assert.strictEqual(config.authRequests.ttlMs, 90_000)
    assert.strictEqual(config.authRequests.maxPending, 15000)
    // A key that takes text only keeps the text: a password `0123` is not the number 123.
    const credentials = config.hypervisor.clusters[0]!.credentials
    assert.strictEqual(credentials._tag === "Password" && Redacted.value(credentials.password as never), "0123")
    // Through an alias too.
    const aliased = configOf(load("events:\n  history: &n ${H}\nauth_requests:\n  max_pending: *n\n", env))
    assert.strictEqual(aliased.authRequests.maxPending, 5000)
  })

  it("keeps a quoted ${NAME} a string: it fails a number key with the message it always had", () => {
    assert.deepStrictEqual(issuesOf(load('events:\n  history: "${H}"\n', { H: "5000" })), [
      'gatehouse.yml:2:12: events.history: expected number, got "${H}"'
    ])
    assert.deepStrictEqual(issuesOf(load("grpc:\n  insecure: '${B}'\n", { B: "true" })), [
      'gatehouse.yml:2:13: grpc.insecure: expected boolean, got "${B}"'
    ])
    // A value that does not read as a number is refused without showing what the variable holds.
    assert.deepStrictEqual(issuesOf(load("events:\n  history: ${H}\n", { H: "lots-of-them" })), [
      'gatehouse.yml:2:12: events.history: expected number, got "${H}"'
    ])
  })

  it("refuses a non-loopback address when no authentication is configured", () => {
    const issues = issuesOf(load("http: { addr: 0.0.0.0:8888 }\n"))
    assert.include(issues[0]!, "gatehouse.yml:1:15: http.addr: 0.0.0.0:8888 is not a loopback address")
  })

  it("binds any address once users or OIDC are configured; public_url sets Secure cookies and a public origin", () => {
    const hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"
    const users = configOf(
      load(
        `http: { addr: 0.0.0.0:8888 }\ngrpc: { addr: 0.0.0.0:50443, insecure: true }\nauth: { users: [{ name: a, password_hash: "${hash}" }] }\n`
      )
    )
    assert.strictEqual(users.http.host, "0.0.0.0")
    assert.strictEqual(
      users.auth.users[0]!.role,
      "admin",
      "a configured user is an admin unless its role says otherwise"
    )
    const oidc = configOf(
      load(
        "http: { addr: 0.0.0.0:8888, public_url: https://gate.example.com/ }\n" +
          "auth: { oidc: { issuer: https://idp.example, client_id: g, allowed_groups: [ops], roles: { operator: [ops] } } }\n"
      )
    )
    assert.strictEqual(oidc.http.publicUrl, "https://gate.example.com")
    assert.isTrue(oidc.http.secureCookies)
    assert.include(oidc.http.allowedHosts, "gate.example.com", "the proxy passes the public name as Host")
    assert.strictEqual(oidc.auth.oidc?.defaultRole, "viewer", "with a role mapping, unmapped users only read")
    const proxied = configOf(load("http: { trusted_proxies: [127.0.0.1, 10.0.0.0/8, fd00::1] }\n"))
    assert.deepStrictEqual(proxied.http.trustedProxies, ["127.0.0.1/32", "10.0.0.0/8", "fd00::1/128"])
    assert.include(issuesOf(load("http: { trusted_proxies: [proxy.lan] }\n"))[0]!, "http.trusted_proxies.0")
    const issues = issuesOf(
      load(
        "http: { public_url: https://gate.example.com/app }\nauth: { users: [{ name: a, role: boss, password_hash: x }] }\n"
      )
    )
    assert.isTrue(
      issues.some((i) => i.includes("http.public_url") && i.includes("no path")),
      issues.join("\n")
    )
    assert.isTrue(
      issues.some((i) => i.includes("auth.users.0.role")),
      issues.join("\n")
    )
    assert.isTrue(
      issues.some((i) => i.includes("auth.users.0.password_hash")),
      issues.join("\n")
    )
  })

  it("resolves paths in the file against its directory, and flag paths against the working directory", () => {
    const result = loadConfig({
      file: { path: "conf/gatehouse.yml", text: "routes_dir: r\n" },
      env: {},
      flags: { data: "d" },
      cwd: "/srv/app"
    })
    const config = configOf(result)
    assert.strictEqual(config.routesDir, "/srv/app/conf/r")
    assert.strictEqual(config.dataDir, "/srv/app/d")
    assert.strictEqual(config.configFile, "/srv/app/conf/gatehouse.yml")
  })

  it("refuses a routes directory that holds the config file", () => {
    const at = (routesDir: string, env: Record<string, string> = {}) =>
      loadConfig({ file: { path: "conf/gatehouse.yml", text: `routes_dir: ${routesDir}\n` }, env, cwd: "/srv/app" })
    const issues = issuesOf(at("."))
    assert.strictEqual(issues.length, 1, issues.join("\n"))
    assert.include(issues[0]!, "routes_dir")
    assert.include(issues[0]!, "holds the config file gatehouse.yml")
    // Through the environment too, resolved against the working directory as any variable's path.
    assert.include(issuesOf(at("r", { GATEHOUSE_ROUTES_DIR: "conf" }))[0]!, "GATEHOUSE_ROUTES_DIR")
    // A sibling directory, or the same directory holding a config file not named like a route file, is fine.
    configOf(at("../routes"))
    const config = configOf(
      loadConfig({ file: { path: "conf/gatehouse.conf", text: "routes_dir: .\n" }, env: {}, cwd: "/srv/app" })
    )
    assert.strictEqual(config.routesDir, "/srv/app/conf")
  })

  it.effect("refuses a routes directory that reaches the config file through a symbolic link", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-config-")
      const etc = path.join(dir, "etc")
      fs.mkdirSync(path.join(etc, "v1"), { recursive: true })
      fs.symlinkSync(".", path.join(etc, "routes"))
      fs.symlinkSync("v1", path.join(etc, "current"))
      const at = (file: string, text: string) => {
        fs.writeFileSync(path.join(etc, file), text)
        return loadConfig({ file: { path: path.join(etc, file), text }, env: {}, cwd: dir })
      }
      // `routes -> .`: the config file's own directory, spelled through a link.
      const issues = issuesOf(at("gatehouse.yml", "routes_dir: ./routes\n"))
      assert.strictEqual(issues.length, 1, issues.join("\n"))
      assert.include(issues[0]!, "gatehouse.yml:1:13: routes_dir: the routes directory")
      assert.include(issues[0]!, "holds the config file gatehouse.yml")
      // A config file that is a link: the directory of the file it leads to holds it too.
      fs.writeFileSync(path.join(etc, "v1", "gatehouse.yml"), "")
      fs.symlinkSync(path.join("current", "gatehouse.yml"), path.join(etc, "live.yml"))
      fs.rmSync(path.join(etc, "gatehouse.yml"))
      const linked = (routesDir: string) => {
        const text = `routes_dir: ${routesDir}\n`
        fs.writeFileSync(path.join(etc, "v1", "gatehouse.yml"), text)
        return loadConfig({ file: { path: path.join(etc, "live.yml"), text }, env: {}, cwd: dir })
      }
      assert.include(issuesOf(linked("./current"))[0]!, "routes_dir: the routes directory")
      assert.include(issuesOf(linked("."))[0]!, "routes_dir: the routes directory")
      // A directory of its own, reached through a link or not, is fine.
      fs.mkdirSync(path.join(etc, "v1", "routes"))
      assert.strictEqual(linked("./current/routes")._tag, "Valid")
      assert.strictEqual(linked("./not-made-yet")._tag, "Valid")
    }).pipe(Effect.scoped)
  )

  it("checks Proxmox credentials", () => {
    const issues = issuesOf(load("hypervisor: { clusters: [{ name: pve, url: https://h:8006, token_id: a@pam!b }] }\n"))
    assert.include(issues[0]!, "token_id needs secret or secret_file")
  })
})

describe("config values", () => {
  it("parses listen addresses", () => {
    assert.deepStrictEqual(parseListenAddress("[::1]:8888"), { host: "::1", port: 8888 })
    assert.deepStrictEqual(parseListenAddress(":80"), { host: "0.0.0.0", port: 80 })
    assert.isUndefined(parseListenAddress("127.0.0.1:70000"))
    assert.isUndefined(parseListenAddress("[nope]:1"))
    assert.isUndefined(parseListenAddress("127.0.0.1"))
  })

  it("parses sizes", () => {
    assert.strictEqual(parseByteSize("1MiB"), 1048576)
    assert.strictEqual(parseByteSize("10MB"), 10_000_000)
    assert.strictEqual(parseByteSize(512), 512)
    assert.isUndefined(parseByteSize("1 parsec"))
    assert.isUndefined(parseByteSize(-1))
  })
})
