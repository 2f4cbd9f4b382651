import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { loadConfig, validateConfigFile } from "../../src/config/index.js"

const HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"
const USERS = `auth: { users: [{ name: a, password_hash: "${HASH}" }] }\n`
const REFUSED =
  "refusing to serve gRPC without TLS on 0.0.0.0:18853: API keys would cross the network in clear text; " +
  "configure grpc.tls (cert, key), listen on loopback, or set grpc.insecure: true"

const check = (text: string) => {
  const result = validateConfigFile({ file: { path: "gatehouse.yml", text }, env: {}, cwd: "/srv/app" })
  return result._tag === "Valid" ? [] : result.issues.map(formatIssue)
}

describe("config: gRPC off loopback needs TLS or insecure: true", () => {
  it("reports plaintext gRPC off loopback at grpc.addr with its position", () => {
    assert.deepStrictEqual(check(`grpc: { addr: "0.0.0.0:18853" }\n${USERS}`), [
      `gatehouse.yml:1:15: grpc.addr: ${REFUSED}`
    ])
    assert.deepStrictEqual(check(`grpc:\n  addr: 10.0.0.5:18853\n${USERS}`), [
      `gatehouse.yml:2:9: grpc.addr: ${REFUSED.replace("0.0.0.0", "10.0.0.5")}`
    ])
  })

  it("accepts TLS, an explicit insecure: true, and loopback", () => {
    assert.deepStrictEqual(check(`grpc: { addr: "0.0.0.0:18853", tls: { cert: g.pem, key: g.key } }\n${USERS}`), [])
    assert.deepStrictEqual(check(`grpc: { addr: "0.0.0.0:18853", insecure: true }\n${USERS}`), [])
    for (const addr of ["127.0.0.1:18853", "127.3.0.1:18853", "[::1]:18853", "localhost:18853"]) {
      assert.deepStrictEqual(check(`grpc: { addr: "${addr}" }\n`), [], addr)
    }
  })

  it("points at the flag or variable that moved gRPC off loopback", () => {
    const result = loadConfig({ file: undefined, env: {}, flags: { grpc: "0.0.0.0:18853" }, cwd: "/srv/app" })
    assert.strictEqual(result._tag, "Invalid")
    const issues = result._tag === "Invalid" ? result.issues.map(formatIssue) : []
    assert.include(issues, `--grpc: grpc.addr: ${REFUSED}`)
  })
})
