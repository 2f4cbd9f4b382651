import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { validateConfigFile } from "../../src/config/index.js"

const check = (text: string) => {
  const result = validateConfigFile({ file: { path: "gatehouse.yml", text }, env: {}, cwd: "/srv/app" })
  return result._tag === "Valid" ? [] : result.issues.map(formatIssue)
}

const oidc = (issuer: string) => `auth:\n  oidc: { issuer: "${issuer}", client_id: gatehouse }\n`

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
})
