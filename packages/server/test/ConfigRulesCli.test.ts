import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type CliResult, gatehouseCommand, runCli } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"

const dir = tempDir("gatehouse-config-rules-")

const HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"

// `validate --config` reports a rule at file:line:column, and `serve` refuses the same file with the same line
// (before anything is created), instead of passing validation and failing later.
const validateAndServe = (text: string, expected: string) =>
  Effect.gen(function* () {
    const cwd = yield* dir
    fs.writeFileSync(path.join(cwd, "c.yml"), text)
    const validated = yield* runCli(["validate", "--config", "c.yml"], { cwd })
    assert.strictEqual(validated.code, 1, validated.stdout)
    assert.include(validated.stderr, expected)
    const served = yield* runCli(["serve", "--config", "c.yml", "--http", "127.0.0.1:0"], { cwd })
    assert.strictEqual(served.code, 1)
    assert.include(served.stderr, expected)
    assert.notInclude(served.stderr, "    at ", "no stack trace")
    assert.isFalse(fs.existsSync(path.join(cwd, "data")), "nothing is created for an invalid config")
  })

describe("gatehouse validate and serve: URLs of the OpenID provider", () => {
  it.live("an issuer that is not a URL", () =>
    Effect.scoped(
      validateAndServe(
        "auth:\n  oidc: { issuer: not a url, client_id: gatehouse }\n",
        'c.yml:2:19: auth.oidc.issuer: expected the https:// URL of the OpenID provider (http:// only for a provider on loopback), got "not a url"'
      )
    )
  )

  it.live("an http:// issuer off loopback", () =>
    Effect.scoped(
      validateAndServe(
        `auth:\n  users: [{ name: admin, password_hash: "${HASH}" }]\n  oidc:\n    issuer: http://idp.example.com\n    client_id: gatehouse\n`,
        'c.yml:4:13: auth.oidc.issuer: expected the https:// URL of the OpenID provider (http:// only for a provider on loopback), got "http://idp.example.com"'
      )
    )
  )
})

describe("gatehouse validate and serve: who may sign in with OpenID Connect", () => {
  it.live("a provider with no allowed_users, allowed_groups or allow_any_user would admit anyone: refused", () =>
    Effect.scoped(
      validateAndServe(
        "auth:\n  oidc:\n    issuer: https://accounts.google.com\n    client_id: gatehouse\n    client_secret: x\n",
        "c.yml:3:5: auth.oidc: say who may sign in: set allowed_users (verified emails or subject ids, sub) or " +
          "allowed_groups, or allow_any_user: true to admit every account the provider signs in"
      )
    )
  )
})

// `runCli` points gRPC at 127.0.0.1:0 through GATEHOUSE_GRPC_ADDR (which would hide the file's grpc.addr): this run
// has no GATEHOUSE_* variable, so the file's own address is what serve reads.
const serveFileOnly = (cwd: string, args: ReadonlyArray<string>) =>
  Effect.promise(
    () =>
      new Promise<CliResult>((resolve) => {
        const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GATEHOUSE_")))
        const child = spawn(process.execPath, gatehouseCommand(args), { cwd, env: { ...env, NODE_OPTIONS: "" } })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk) => (stdout += chunk))
        child.stderr.on("data", (chunk) => (stderr += chunk))
        child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
      })
  )

describe("gatehouse validate and serve: gRPC off loopback without TLS", () => {
  it.live("is a config problem at grpc.addr, reported by validate and refused by serve with its position", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const cwd = yield* dir
        fs.writeFileSync(
          path.join(cwd, "c.yml"),
          `grpc: { addr: "0.0.0.0:18853" }\nauth:\n  users: [{ name: admin, password_hash: "${HASH}" }]\n`
        )
        const expected =
          "c.yml:1:15: grpc.addr: refusing to serve gRPC without TLS on 0.0.0.0:18853: API keys would cross the " +
          "network in clear text; configure grpc.tls (cert, key), listen on loopback, or set grpc.insecure: true"
        const validated = yield* runCli(["validate", "--config", "c.yml"], { cwd })
        assert.strictEqual(validated.code, 1, validated.stdout)
        assert.include(validated.stderr, expected)
        const served = yield* serveFileOnly(cwd, ["serve", "--config", "c.yml", "--http", "127.0.0.1:0"])
        assert.strictEqual(served.code, 1)
        assert.include(served.stderr, expected)
        assert.isFalse(fs.existsSync(path.join(cwd, "data")), "refused before anything is created")
      })
    )
  )
})
