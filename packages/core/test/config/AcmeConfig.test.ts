import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Redacted } from "effect"
import { type GatehouseConfig, loadConfig } from "../../src/config/index.js"

// The `acme` section of gatehouse.yml: resolved (paths against the config file, defaults, secrets redacted) and
// checked across keys.

const load = (text: string) => loadConfig({ file: { path: "conf/gatehouse.yml", text }, env: {}, cwd: "/srv/app" })

const configOf = (result: ReturnType<typeof load>): GatehouseConfig => {
  if (result._tag !== "Valid") return assert.fail(result.issues.map(formatIssue).join("\n"))
  return result.config
}

const issuesOf = (result: ReturnType<typeof load>) => {
  if (result._tag !== "Invalid") return assert.fail("expected problems")
  return result.issues.map(formatIssue)
}

const acme = (rest: string) => `acme:
  directory: https://acme.example/dir
${rest}`

describe("acme config", () => {
  it("resolves paths against the config file, applies defaults and keeps the TSIG secret redacted", () => {
    const config = configOf(
      load(
        acme(`  email: ops@example.com
  ca_file: ca/root.pem
  http01: { addr: "0.0.0.0:80" }
  dns01:
    provider: rfc2136
    server: "ns1.example.com:53"
    zone: Example.COM.
    key_name: gatehouse
    key_secret: c2VjcmV0
  certificates:
    - { name: web, domains: [WWW.example.com, example.com] }
    - { name: wild, domains: ["*.example.com"], challenge: dns-01 }
certificates:
  - { name: files, cert: certs/cert.pem, key: certs/key.pem }
`)
      )
    )
    const section = config.acme!
    assert.strictEqual(section.caFile, "/srv/app/conf/ca/root.pem")
    assert.strictEqual(section.renewBeforeMs, 30 * 86_400_000)
    assert.deepStrictEqual(section.http01, { host: "0.0.0.0", port: 80 })
    assert.deepStrictEqual(section.certificates, [
      { name: "web", domains: ["www.example.com", "example.com"], challenge: "http-01" },
      { name: "wild", domains: ["*.example.com"], challenge: "dns-01" }
    ])
    const dns01 = section.dns01!
    assert.strictEqual(dns01.zone, "example.com")
    assert.strictEqual(dns01.keyAlgorithm, "hmac-sha256")
    assert.strictEqual(dns01.ttlSeconds, 60)
    assert.strictEqual(dns01.propagationTimeoutMs, 60_000)
    assert.isTrue(Redacted.isRedacted(dns01.keySecret))
    assert.strictEqual(Redacted.value(dns01.keySecret as Redacted.Redacted<string>), "c2VjcmV0")
    assert.notInclude(JSON.stringify(config), "c2VjcmV0")
    assert.deepStrictEqual(config.certificates, [
      { name: "files", cert: "/srv/app/conf/certs/cert.pem", key: "/srv/app/conf/certs/key.pem" }
    ])
  })

  it("a secret file, and dns-01 as the default challenge when only dns01 is configured", () => {
    const config = configOf(
      load(
        acme(`  renew_before: 240h
  dns01: { provider: rfc2136, server: "127.0.0.1:53", zone: example.com, key_name: k, key_secret_file: ../tsig.key }
  certificates: [{ name: a, domains: [a.example.com] }]
`)
      )
    )
    assert.strictEqual(config.acme!.renewBeforeMs, 240 * 3_600_000)
    assert.deepStrictEqual(config.acme!.dns01!.keySecret, {
      _tag: "File",
      path: "/srv/app/tsig.key",
      key: "acme.dns01.key_secret_file"
    })
    assert.strictEqual(config.acme!.certificates[0]!.challenge, "dns-01")
  })

  it("reports every malformed value at its key, unknown keys with a hint", () => {
    const issues = issuesOf(
      load(`acme:
  directroy: https://acme.example/dir
  certificates:
    - { name: "../up", domains: [x.example.com] }
    - { name: web, domains: [not_a_name], challenge: tls-alpn-01 }
`)
    )
    const expected = [
      "gatehouse.yml:2:3: acme.directroy: unknown key `directroy` (did you mean `directory`?)",
      "acme.directory: missing required key",
      "acme.certificates.0.name: expected a name of letters",
      "acme.certificates.1.domains.0: expected a fully qualified domain name",
      "acme.certificates.1.challenge"
    ]
    for (const fragment of expected) {
      assert.isTrue(
        issues.some((issue) => issue.includes(fragment)),
        `no issue with ${fragment} in:\n${issues.join("\n")}`
      )
    }
  })

  it("checks across keys: challenge setup, wildcards, unique names, the key secret, names in the zone", () => {
    const issues = issuesOf(
      load(
        acme(`  dns01: { provider: rfc2136, server: "127.0.0.1:53", zone: example.com, key_name: k }
  certificates:
    - { name: web, domains: [www.example.org], challenge: dns-01 }
    - { name: star, domains: ["*.example.com"], challenge: http-01 }
certificates:
  - { name: star, cert: c.pem, key: k.pem }
`)
      )
    )
    const expected = [
      "acme.dns01.key_name: key_name needs key_secret or key_secret_file",
      "acme.certificates.0.domains.0: www.example.org is not in the dns01 zone example.com",
      'acme.certificates.1.name: duplicate name "star"',
      "acme.certificates.1.domains.0: a wildcard name (*.example.com) can only be validated with dns-01",
      "acme.certificates.1.challenge: http-01 needs acme.http01.addr"
    ]
    for (const fragment of expected) {
      assert.isTrue(
        issues.some((issue) => issue.includes(fragment)),
        `no issue with ${fragment} in:\n${issues.join("\n")}`
      )
    }
  })

  it("a key secret written inline and as a file is refused, without showing the secret", () => {
    const issues = issuesOf(
      load(
        acme(`  dns01: { provider: rfc2136, server: "127.0.0.1:53", zone: example.com, key_name: k, key_secret: s3cr3tvalue, key_secret_file: f }
`)
      )
    )
    assert.isTrue(
      issues.some((issue) => issue.includes("set key_secret or key_secret_file, not both")),
      issues.join("\n")
    )
    assert.notInclude(issues.join("\n"), "s3cr3tvalue")
  })
})
