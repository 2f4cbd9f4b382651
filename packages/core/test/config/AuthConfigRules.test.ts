import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { loadConfig } from "../../src/config/index.js"

const HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"

const load = (text: string) => loadConfig({ file: { path: "gatehouse.yml", text }, env: {}, flags: {}, cwd: "/srv" })

const issuesOf = (text: string) => {
  const result = load(text)
  if (result._tag === "Valid") return assert.fail("expected problems")
  return result.issues.map(formatIssue)
}

const configOf = (text: string) => {
  const result = load(text)
  if (result._tag === "Invalid") return assert.fail(result.issues.map(formatIssue).join("\n"))
  return result.config
}

const oidc = (extra: string) =>
  `auth:\n  oidc:\n    issuer: https://accounts.google.com\n    client_id: gatehouse\n${extra}`

describe("auth.oidc: who may sign in is said, never assumed", () => {
  it("a provider without allowed_users or allowed_groups is a config error at auth.oidc, saying what to set", () => {
    const expected =
      "gatehouse.yml:3:5: auth.oidc: say who may sign in: set allowed_users (verified emails or subject ids, sub) " +
      "or allowed_groups, or allow_any_user: true to admit every account the provider signs in"
    assert.deepStrictEqual(issuesOf(oidc("")), [expected])
    // Empty lists name nobody either: they never mean everyone.
    assert.deepStrictEqual(issuesOf(oidc("    allowed_users: []\n    allowed_groups: []\n")), [expected])
    assert.deepStrictEqual(issuesOf(oidc("    allow_any_user: false\n")), [expected])
  })

  it("allow_any_user: true admits every account, as a viewer unless default_role says otherwise", () => {
    const open = configOf(oidc("    allow_any_user: true\n")).auth.oidc!
    assert.isTrue(open.allowAnyUser)
    assert.strictEqual(open.defaultRole, "viewer")
    assert.strictEqual(
      configOf(oidc("    allow_any_user: true\n    default_role: admin\n")).auth.oidc!.defaultRole,
      "admin"
    )
    // With a list beside it, one of the two would be ignored: which the operator meant is a guess.
    assert.deepStrictEqual(issuesOf(oidc("    allow_any_user: true\n    allowed_groups: [staff]\n")), [
      "gatehouse.yml:5:21: auth.oidc.allow_any_user: allow_any_user: true admits every account the provider signs " +
        "in, whatever allowed_users and allowed_groups say: leave out the lists, or allow_any_user"
    ])
  })

  it("users named by an allow-list are admins without roles, viewers with roles; allow_any_user defaults to false", () => {
    const named = configOf(oidc("    allowed_users: [ada@example.org]\n")).auth.oidc!
    assert.isFalse(named.allowAnyUser)
    assert.strictEqual(named.defaultRole, "admin")
    assert.strictEqual(configOf(oidc("    allowed_groups: [staff]\n")).auth.oidc!.defaultRole, "admin")
    const mapped = configOf(oidc("    allowed_groups: [staff]\n    roles: { admin: [admins] }\n")).auth.oidc!
    assert.strictEqual(mapped.defaultRole, "viewer")
  })
})

describe("auth.users: one entry per name", () => {
  it("a name listed twice is a config error at the second entry's name", () => {
    const issues = issuesOf(
      "auth:\n  users:\n" +
        `    - { name: alice, role: admin, password_hash: "${HASH}" }\n` +
        `    - { name: bob, role: viewer, password_hash: "${HASH}" }\n` +
        `    - { name: alice, role: viewer, password_hash: "${HASH}" }\n`
    )
    assert.deepStrictEqual(issues, [
      'gatehouse.yml:5:15: auth.users.2.name: duplicate name "alice" (auth.users.0 has it)'
    ])
  })
})

describe("http.public_url: normalised to the origin browsers send", () => {
  const resolved = (publicUrl: string) =>
    configOf(`http:\n  public_url: ${publicUrl}\nauth:\n  users: [{ name: a, password_hash: "${HASH}" }]\n`).http

  it("drops a scheme's default port and a trailing slash, and spells a non-ASCII host in punycode", () => {
    for (const [written, origin] of [
      ["https://gate.example.com", "https://gate.example.com"],
      ["https://gate.example.com:443", "https://gate.example.com"],
      ["https://gate.example.com:443/", "https://gate.example.com"],
      ["http://gate.example.com:80", "http://gate.example.com"],
      ["https://gate.example.com:8443", "https://gate.example.com:8443"],
      ["https://Gate.Example.COM", "https://gate.example.com"],
      ["https://bücher.example", "https://xn--bcher-kva.example"]
    ] as const) {
      assert.strictEqual(resolved(written).publicUrl, origin, written)
    }
    const punycode = resolved("https://bücher.example")
    assert.isTrue(punycode.secureCookies)
    assert.include(punycode.allowedHosts, "xn--bcher-kva.example", "the Host a browser sends")
    assert.isFalse(resolved("http://gate.example.com:80").secureCookies)
    // An IPv6 host is allowed as `Host` checks compare it: without brackets.
    assert.include(resolved("https://[2001:db8::1]:443").allowedHosts, "2001:db8::1")
    assert.strictEqual(resolved("https://[2001:db8::1]:443").publicUrl, "https://[2001:db8::1]")
  })
})
