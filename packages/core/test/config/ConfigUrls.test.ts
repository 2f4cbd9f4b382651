import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { validateConfigFile } from "../../src/config/index.js"

const check = (text: string) => {
  const result = validateConfigFile({ file: { path: "gatehouse.yml", text }, env: {}, cwd: "/srv/app" })
  return result._tag === "Valid" ? [] : result.issues.map(formatIssue)
}

const oidc = (issuer: string) => `auth:\n  oidc: { issuer: "${issuer}", client_id: gatehouse, allowed_groups: [ops] }\n`

describe("config: the URLs of servers Gatehouse calls", () => {
  it("auth.oidc.issuer must be a URL, reported at its key and position", () => {
    assert.deepStrictEqual(check(oidc("not a url")), [
      'gatehouse.yml:2:19: auth.oidc.issuer: expected the https:// URL of the OpenID provider (http:// only for a provider on loopback), got "not a url"'
    ])
    assert.deepStrictEqual(check(oidc("https://")), [
      'gatehouse.yml:2:19: auth.oidc.issuer: expected the https:// URL of the OpenID provider (http:// only for a provider on loopback), got "https://"'
    ])
  })

  it("auth.oidc.issuer is https://, http:// only on loopback", () => {
    assert.deepStrictEqual(check(oidc("http://idp.example.com")), [
      'gatehouse.yml:2:19: auth.oidc.issuer: expected the https:// URL of the OpenID provider (http:// only for a provider on loopback), got "http://idp.example.com"'
    ])
    assert.lengthOf(check(oidc("ftp://idp.example.com")), 1)
    for (const issuer of [
      "https://idp.example.com",
      "https://idp.example.com/realms/main",
      "http://localhost:9000",
      "http://127.0.0.1:9000/oidc",
      "http://[::1]:9000"
    ]) {
      assert.deepStrictEqual(check(oidc(issuer)), [], issuer)
    }
  })

  it("acme.directory must be an https:// URL that parses", () => {
    const acme = (directory: string) => `acme:\n  directory: "${directory}"\n`
    assert.deepStrictEqual(check(acme("https://not a url")), [
      'gatehouse.yml:2:14: acme.directory: expected the https:// URL of the ACME directory, got "https://not a url"'
    ])
    assert.deepStrictEqual(check(acme("http://127.0.0.1:14000/dir")), [
      'gatehouse.yml:2:14: acme.directory: expected the https:// URL of the ACME directory, got "http://127.0.0.1:14000/dir"'
    ])
    assert.deepStrictEqual(check(acme("https://acme-v02.api.letsencrypt.org/directory")), [])
  })

  it("http.public_url must parse as a URL, not only match the origin pattern", () => {
    for (const url of ["https://gate.example.com:99999", "https://[zz]", "https://:::"]) {
      assert.deepStrictEqual(
        check(`http: { public_url: "${url}" }\n`),
        ["gatehouse.yml:1:21: http.public_url: expected the server's origin, e.g. https://gate.example.com (no path)"],
        url
      )
    }
    assert.deepStrictEqual(check("http: { public_url: https://gate.example.com:8443/ }\n"), [])
  })

  it("a Proxmox VE cluster's and a Docker host's url must parse, not only start with a scheme", () => {
    const cluster = (url: string) =>
      `hypervisor:\n  clusters:\n    - { name: pve, url: "${url}", token_id: "gatehouse@pve!monitor", secret_file: s }\n`
    assert.deepStrictEqual(check(cluster("https://pve:99999")), [
      'gatehouse.yml:3:25: hypervisor.clusters.0.url: expected the https:// URL of the Proxmox VE API, e.g. https://pve:8006, got "https://pve:99999"'
    ])
    assert.deepStrictEqual(check(cluster("https://10.0.0.1:8006")), [])
    // The API client speaks HTTPS only: http:// would fail (as a defect) at the first request, not at start.
    assert.deepStrictEqual(check(cluster("http://10.0.0.1:8006")), [
      "gatehouse.yml:3:25: hypervisor.clusters.0.url: " +
        'expected the https:// URL of the Proxmox VE API, e.g. https://pve:8006, got "http://10.0.0.1:8006"'
    ])
    const docker = (url: string) => `docker:\n  hosts:\n    - { name: nas, url: "${url}" }\n`
    for (const url of ["tcp://[zz]:2376", "tcp://nas:99999", "ssh://nas"]) {
      assert.deepStrictEqual(
        check(docker(url)),
        [`gatehouse.yml:3:25: docker.hosts.0.url: expected unix:///path or tcp://host:port, got "${url}"`],
        url
      )
    }
    for (const url of ["unix:///var/run/docker.sock", "tcp://10.0.0.5:2376", "http://127.0.0.1:2375"]) {
      assert.deepStrictEqual(check(docker(url)), [], url)
    }
  })

  it("a cluster's TLS fingerprint and a node's host key pin must be pins that can match, at their keys", () => {
    const fingerprint = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, "0").toUpperCase()).join(":")
    const hostKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINXMR3B8fhRicCxdw2WsSQ24qzlMJ7jglV/k/yQRdKMN"
    const cluster = (tls: string, pin: string) =>
      "hypervisor:\n  clusters:\n    - name: pve\n      url: https://10.0.0.1:8006\n" +
      '      token_id: "gatehouse@pve!monitor"\n      secret_file: s\n' +
      `      tls: { fingerprint: "${tls}" }\n` +
      `      ssh: { private_key: k, nodes: { pve1: { host: 10.0.0.1, host_key: "${pin}" } } }\n`
    assert.deepStrictEqual(check(cluster(fingerprint, hostKey)), [])
    assert.deepStrictEqual(
      check(
        cluster(fingerprint.replaceAll(":", "").toLowerCase(), "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU")
      ),
      []
    )
    assert.deepStrictEqual(check(cluster("AB:CD", "ssh-ed25519 AAAA")), [
      "gatehouse.yml:7:27: hypervisor.clusters.0.tls.fingerprint: " +
        'expected a SHA-256 fingerprint: 32 hex pairs, e.g. AB:CD:… (pvenode cert info), got "AB:CD"',
      "gatehouse.yml:8:73: hypervisor.clusters.0.ssh.nodes.pve1.host_key: " +
        'expected the node\'s public host key ("ssh-ed25519 AAAA…", from /etc/ssh/ssh_host_ed25519_key.pub) ' +
        'or its fingerprint ("SHA256:…", ssh-keygen -lf), got "ssh-ed25519 AAAA"'
    ])
    // A fingerprint of the wrong length, a SHA-1 one, a key line whose type is not the one in its blob.
    for (const [tls, pin] of [
      [fingerprint.slice(3), "SHA256:short"],
      [fingerprint.split(":").slice(0, 20).join(":"), hostKey.replace("ssh-ed25519", "ssh-rsa")]
    ] as const) {
      assert.lengthOf(check(cluster(tls, pin)), 2, `${tls} ${pin}`)
    }
  })
})
