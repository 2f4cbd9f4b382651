import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Redacted } from "effect"
import { loadConfig, validateConfigFile } from "../../src/config/index.js"

// Recognisable secrets: a test fails if any of them shows up where it must not.
const SECRETS = {
  token: "12345678-SECRET-TOKEN",
  hash: "hunter2-SECRET-HASH",
  client: 987654321,
  env: "not-a-uuid-SECRET-ENV",
  nested: "SECRET-NESTED",
  override: "SECRET-OVERRIDE"
} as const

const leaked = (text: string) => Object.values(SECRETS).filter((secret) => text.includes(String(secret)))

const badSecrets = `
auth:
  users: [{ name: admin, password_hash: ${SECRETS.hash} }]
  oidc: { issuer: https://idp.example, client_id: gh, client_secret: ${SECRETS.client} }
hypervisor:
  clusters:
    - { name: a, url: https://h:8006, token_id: a@pam!b, secret: ${SECRETS.token} }
    - { name: b, url: https://h:8006, token_id: a@pam!b, secret: "\${PVE_SECRET}" }
    - { name: c, url: https://h:8006, username: root@pam, password: [${SECRETS.nested}] }
`

describe("secrets in the config", () => {
  it("never appear in an issue: each bad secret is reported at its key, line and column as <redacted>", () => {
    const result = loadConfig({
      file: { path: "gatehouse.yml", text: badSecrets },
      env: { PVE_SECRET: SECRETS.env },
      cwd: "/srv"
    })
    if (result._tag === "Valid") return assert.fail("expected problems")
    const messages = result.issues.map(formatIssue)
    assert.deepStrictEqual(leaked(JSON.stringify(result)), [])
    assert.deepStrictEqual(messages, [
      "gatehouse.yml:3:41: auth.users.0.password_hash: expected an argon2id or bcrypt hash ($argon2id$... or $2b$...)",
      "gatehouse.yml:4:70: auth.oidc.client_secret: expected string, got <redacted>",
      "gatehouse.yml:7:66: hypervisor.clusters.0.secret: expected the API token's secret, a UUID such as 00000000-0000-0000-0000-000000000000",
      "gatehouse.yml:8:66: hypervisor.clusters.1.secret: expected the API token's secret, a UUID such as 00000000-0000-0000-0000-000000000000",
      "gatehouse.yml:9:69: hypervisor.clusters.2.password: expected string, got <redacted>"
    ])
  })

  it("never appear when a variable sets them, and the issue names the variable", () => {
    const result = loadConfig({
      file: { path: "gatehouse.yml", text: "auth: { oidc: { issuer: https://idp, client_id: gh } }\n" },
      env: { GATEHOUSE_AUTH_OIDC_CLIENT_SECRET: "" },
      cwd: "/srv"
    })
    if (result._tag === "Valid") return assert.fail("expected problems")
    assert.deepStrictEqual(result.issues.map(formatIssue), [
      "GATEHOUSE_AUTH_OIDC_CLIENT_SECRET: auth.oidc.client_secret: expected a value with a length of at least 1, got <redacted>"
    ])
  })

  it("never appear when validating the file as a file", () => {
    const result = validateConfigFile({
      file: { path: "gatehouse.yml", text: badSecrets },
      env: { PVE_SECRET: SECRETS.env },
      cwd: "/srv"
    })
    assert.strictEqual(result._tag, "Invalid")
    assert.deepStrictEqual(leaked(JSON.stringify(result)), [])
  })

  it("a variable referenced under any key is never read back: a message that quotes the value shows ${NAME}", () => {
    const text = `http: { addr: "\${DB_PASSWORD}" }\nlog: { level: "\${OTHER}-\${DB_PASSWORD}" }\n`
    const env = { DB_PASSWORD: 'SECRET-pa"ss', OTHER: "x" }
    for (const result of [
      validateConfigFile({ file: { path: "gatehouse.yml", text }, env, cwd: "/srv" }),
      loadConfig({ file: { path: "gatehouse.yml", text }, env, cwd: "/srv" })
    ]) {
      if (result._tag === "Valid") return assert.fail("expected problems")
      const messages = result.issues.map(formatIssue)
      assert.notInclude(JSON.stringify(result), "SECRET")
      assert.lengthOf(messages, 2)
      assert.include(
        messages[0],
        'http.addr: expected host:port, e.g. 127.0.0.1:8888 or [::1]:8888, got "${DB_PASSWORD}"'
      )
      assert.include(messages[1], "x-${DB_PASSWORD}")
    }
  })

  it("print as <redacted> when the whole config is serialized or inspected", () => {
    const text = `
auth:
  users: [{ name: admin, password_hash: "$argon2id$${SECRETS.hash}" }]
  oidc: { issuer: https://idp.example, client_id: gh, client_secret: "${SECRETS.client}", allowed_groups: [ops] }
hypervisor:
  clusters:
    - { name: a, url: https://h:8006, username: root@pam, password: ${SECRETS.override} }
`
    const result = loadConfig({ file: { path: "gatehouse.yml", text }, env: {}, cwd: "/srv" })
    if (result._tag === "Invalid") return assert.fail(result.issues.map(formatIssue).join("\n"))
    const { config } = result
    for (const shown of [
      JSON.stringify(config),
      inspect(config, { depth: null }),
      String(config.auth.users[0]!.passwordHash)
    ]) {
      assert.deepStrictEqual(leaked(shown), [])
      assert.include(shown, "<redacted>")
    }
    // Still there for the feature that needs it.
    const cluster = config.hypervisor.clusters[0]!
    assert.strictEqual(cluster.credentials._tag, "Password")
    if (cluster.credentials._tag === "Password") {
      assert.strictEqual(Redacted.value(cluster.credentials.password as Redacted.Redacted<string>), SECRETS.override)
    }
  })
})
