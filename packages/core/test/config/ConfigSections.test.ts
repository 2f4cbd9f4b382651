import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Redacted } from "effect"
import { type GatehouseConfig, loadConfig } from "../../src/config/index.js"

const load = (text: string, env: Record<string, string> = {}, cwd = "/srv/app") =>
  loadConfig({ file: { path: "conf/gatehouse.yml", text }, env, cwd })

const configOf = (result: ReturnType<typeof load>): GatehouseConfig => {
  if (result._tag !== "Valid") return assert.fail(result.issues.map(formatIssue).join("\n"))
  return result.config
}

const issuesOf = (result: ReturnType<typeof load>) => {
  if (result._tag !== "Invalid") return assert.fail("expected problems")
  return result.issues.map(formatIssue)
}

const HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"
const TOKEN_SECRET = "0f0e0d0c-1111-4222-8333-444455556666"

describe("typed config sections", () => {
  it("gives every feature its section with the SPEC's defaults when the file says nothing", () => {
    const config = configOf(load("{}\n"))
    assert.deepStrictEqual(config.auth, { users: [], oidc: undefined, sessionTtlMs: 24 * 3_600_000 })
    assert.isFalse(config.authConfigured)
    assert.deepStrictEqual(config.hypervisor, { clusters: [], tailPaths: ["/var/log"] })
    assert.deepStrictEqual(config.docker, { hosts: [] })
    assert.deepStrictEqual(config.certificates, [])
    assert.deepStrictEqual(config.authRequests, {
      ttlMs: 15 * 60_000,
      maxPending: 1024,
      retentionMs: 30 * 24 * 3_600_000,
      expiredRetentionMs: 3_600_000,
      expiredMax: 10_000,
      createPerSecond: 20,
      createBurst: 100,
      ipv4Prefix: "100.64.0.0/10",
      ipv6Prefix: "fd7a:115c:a1e0::/48"
    })
  })

  it("resolves every path against the config file's directory and applies section defaults", () => {
    const config = configOf(
      load(`
auth:
  users: [{ name: admin, password_hash: "${HASH}" }]
  oidc: { issuer: https://idp.example, client_id: gatehouse, client_secret_file: secrets/oidc, allowed_users: [ada@example.org] }
hypervisor:
  clusters:
    - name: pve
      url: https://10.0.0.1:8006
      token_id: root@pam!gatehouse
      secret_file: ../pve.secret
      tls: { ca_file: pve-ca.pem }
      ssh: { private_key: keys/id_ed25519, port: 2222, nodes: { pve1: { host: 10.0.0.1 }, pve2: { host: 10.0.0.2, port: 22 } } }
    - { name: lab, url: https://10.0.0.9:8006, username: gatehouse, password_file: /run/secrets/lab, realm: pve }
docker:
  hosts:
    - { name: local, url: "unix:///var/run/docker.sock" }
    - { name: nas, url: "tcp://10.0.0.5:2376", tls: { ca: tls/ca.pem, cert: tls/cert.pem, key: /etc/tls/key.pem } }
certificates:
  - { name: main, cert: ./certs/cert.pem, key: certs/key.pem }
grpc: { unix_socket: gatehouse.sock, tls: { cert: grpc.pem, key: grpc.key } }
`)
    )
    assert.strictEqual(config.auth.users[0]!.name, "admin")
    assert.strictEqual(Redacted.value(config.auth.users[0]!.passwordHash), HASH)
    assert.isTrue(config.authConfigured)
    assert.deepStrictEqual(config.auth.oidc, {
      issuer: "https://idp.example",
      clientId: "gatehouse",
      clientSecret: { _tag: "File", path: "/srv/app/conf/secrets/oidc", key: "auth.oidc.client_secret_file" },
      scopes: ["openid", "profile", "email"],
      allowedUsers: ["ada@example.org"],
      allowedGroups: [],
      allowAnyUser: false,
      groupsClaim: "groups",
      roles: { admin: [], operator: [], viewer: [] },
      defaultRole: "admin"
    })
    const [pve, lab] = config.hypervisor.clusters
    assert.deepStrictEqual(pve, {
      name: "pve",
      url: "https://10.0.0.1:8006",
      credentials: {
        _tag: "Token",
        tokenId: "root@pam!gatehouse",
        secret: { _tag: "File", path: "/srv/app/pve.secret", key: "hypervisor.clusters.0.secret_file" }
      },
      tls: { fingerprint: undefined, caFile: "/srv/app/conf/pve-ca.pem", insecure: false },
      refreshIntervalMs: 3_000,
      lookupConcurrency: 3,
      ssh: {
        user: "root",
        port: 2222,
        privateKey: "/srv/app/conf/keys/id_ed25519",
        nodes: {
          pve1: { host: "10.0.0.1", port: 2222, hostKey: undefined },
          pve2: { host: "10.0.0.2", port: 22, hostKey: undefined }
        }
      }
    })
    assert.deepStrictEqual(lab!.credentials, {
      _tag: "Password",
      username: "gatehouse",
      password: { _tag: "File", path: "/run/secrets/lab", key: "hypervisor.clusters.1.password_file" },
      realm: "pve"
    })
    assert.isUndefined(lab!.ssh)
    assert.deepStrictEqual(config.docker.hosts, [
      { name: "local", url: "unix:///var/run/docker.sock", tls: undefined },
      {
        name: "nas",
        url: "tcp://10.0.0.5:2376",
        tls: { ca: "/srv/app/conf/tls/ca.pem", cert: "/srv/app/conf/tls/cert.pem", key: "/etc/tls/key.pem" }
      }
    ])
    assert.deepStrictEqual(config.certificates, [
      { name: "main", cert: "/srv/app/conf/certs/cert.pem", key: "/srv/app/conf/certs/key.pem" }
    ])
    assert.strictEqual(config.grpc.unixSocket, "/srv/app/conf/gatehouse.sock")
    assert.deepStrictEqual(config.grpc.tls, { cert: "/srv/app/conf/grpc.pem", key: "/srv/app/conf/grpc.key" })
  })

  it("keeps an inline secret as Redacted and takes durations in milliseconds", () => {
    const config = configOf(
      load(`
auth:
  oidc: { issuer: https://idp.example, client_id: gh, client_secret: s3cr3t, scopes: [openid], allowed_groups: [ops] }
  session_ttl: 1h
hypervisor:
  clusters:
    - { name: pve, url: https://h:8006, token_id: a@pam!b, secret: ${TOKEN_SECRET}, refresh_interval: 10s, lookup_concurrency: 8 }
auth_requests:
  { ttl: 5m, max_pending: 10, retention: 2h, ipv4_prefix: 10.64.0.0/10, ipv6_prefix: "fd00::/48",
    expired_retention: 10m, expired_max: 500, create_rate: 2.5, create_burst: 5 }
`)
    )
    const clientSecret = config.auth.oidc!.clientSecret
    assert.isTrue(Redacted.isRedacted(clientSecret))
    assert.strictEqual(Redacted.value(clientSecret as Redacted.Redacted<string>), "s3cr3t")
    assert.deepStrictEqual(config.auth.oidc!.scopes, ["openid"])
    assert.strictEqual(config.auth.sessionTtlMs, 3_600_000)
    const cluster = config.hypervisor.clusters[0]!
    assert.strictEqual(cluster.credentials._tag, "Token")
    if (cluster.credentials._tag === "Token") {
      assert.strictEqual(Redacted.value(cluster.credentials.secret as Redacted.Redacted<string>), TOKEN_SECRET)
    }
    assert.strictEqual(cluster.refreshIntervalMs, 10_000)
    assert.strictEqual(cluster.lookupConcurrency, 8)
    assert.deepStrictEqual(config.authRequests, {
      ttlMs: 300_000,
      maxPending: 10,
      retentionMs: 2 * 3_600_000,
      expiredRetentionMs: 600_000,
      expiredMax: 500,
      createPerSecond: 2.5,
      createBurst: 5,
      ipv4Prefix: "10.64.0.0/10",
      ipv6Prefix: "fd00::/48"
    })
  })

  it("resolves a path set by a variable against the working directory", () => {
    const config = configOf(load("routes_dir: r\n", { GATEHOUSE_GRPC_UNIX_SOCKET: "run/g.sock" }))
    assert.strictEqual(config.grpc.unixSocket, "/srv/app/run/g.sock")
    assert.strictEqual(config.routesDir, "/srv/app/conf/r")
  })

  it("takes a text setting from a variable as it is, not as a YAML number", () => {
    const config = configOf(
      load("auth: { oidc: { issuer: https://idp, client_id: gh, allowed_groups: [ops] } }\n", {
        GATEHOUSE_AUTH_OIDC_CLIENT_SECRET: "0123",
        GATEHOUSE_DATA_DIR: "2024"
      })
    )
    const secret = config.auth.oidc!.clientSecret as Redacted.Redacted<string>
    assert.strictEqual(Redacted.value(secret), "0123")
    assert.strictEqual(config.dataDir, "/srv/app/2024")
  })

  it("refuses ambiguous or incomplete credentials and prefixes of the wrong family", () => {
    const issues = issuesOf(
      load(`
auth:
  oidc: { issuer: https://idp, client_id: gh, client_secret: a, client_secret_file: b }
hypervisor:
  clusters:
    - { name: a, url: https://h:8006, token_id: a@pam!b, secret: ${TOKEN_SECRET}, secret_file: s }
    - { name: b, url: https://h:8006, username: root@pam }
    - { name: c, url: https://h:8006, token_id: a@pam!b, secret: ${TOKEN_SECRET}, username: root@pam, password: x }
auth_requests: { ipv4_prefix: "fd7a::/48", ipv6_prefix: 100.64.0.0/10 }
`)
    )
    assert.deepStrictEqual(issues, [
      'conf/gatehouse.yml:9:31: auth_requests.ipv4_prefix: expected an IPv4 prefix such as 100.64.0.0/10, got "fd7a::/48"',
      'conf/gatehouse.yml:9:57: auth_requests.ipv6_prefix: expected an IPv6 prefix such as fd7a:115c:a1e0::/48, got "100.64.0.0/10"'
    ])
    const rules = issuesOf(
      load(`
auth:
  oidc: { issuer: https://idp, client_id: gh, client_secret: a, client_secret_file: b, allowed_groups: [ops] }
hypervisor:
  clusters:
    - { name: a, url: https://h:8006, token_id: a@pam!b, secret: ${TOKEN_SECRET}, secret_file: s }
    - { name: b, url: https://h:8006, username: root@pam }
    - { name: c, url: https://h:8006, token_id: a@pam!b, secret: ${TOKEN_SECRET}, username: root@pam, password: x }
    - { name: d, url: https://h:8006, username: root@pam, password: x, realm: pam }
`)
    )
    assert.deepStrictEqual(rules, [
      "conf/gatehouse.yml:3:85: auth.oidc.client_secret_file: set client_secret or client_secret_file, not both",
      "conf/gatehouse.yml:6:117: hypervisor.clusters.0.secret_file: set secret or secret_file, not both",
      "conf/gatehouse.yml:7:49: hypervisor.clusters.1.username: username needs password or password_file",
      "conf/gatehouse.yml:8:114: hypervisor.clusters.2.username: set token_id + secret or username + password, not both",
      "conf/gatehouse.yml:9:79: hypervisor.clusters.3.realm: the username already names its realm (user@realm): " +
        "leave realm out"
    ])
  })

  it("hypervisor.tail_paths: absolute directories without `..`, normalised; default /var/log", () => {
    const config = configOf(load("hypervisor: { tail_paths: [/var/log/, //srv//app/logs, /var/log] }\n"))
    assert.deepStrictEqual(config.hypervisor.tailPaths, ["/var/log", "/srv/app/logs"])
    assert.deepStrictEqual(configOf(load("hypervisor: { tail_paths: [] }\n")).hypervisor.tailPaths, [])
    assert.deepStrictEqual(issuesOf(load("hypervisor: { tail_paths: [var/log, /var/log/../../etc, /ok] }\n")), [
      "conf/gatehouse.yml:1:28: hypervisor.tail_paths.0: " +
        'expected an absolute directory without `..`, e.g. /var/log, got "var/log"',
      "conf/gatehouse.yml:1:37: hypervisor.tail_paths.1: " +
        'expected an absolute directory without `..`, e.g. /var/log, got "/var/log/../../etc"'
    ])
  })
})
