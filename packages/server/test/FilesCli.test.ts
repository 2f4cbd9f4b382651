import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { type FileWritten, GatehouseClient } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { startTestServer } from "../../../test/support/TestServer.js"
import { cliAgainst } from "./support/CliAgainst.js"

// `gatehouse files ...` as an operator runs it, against a real server (in this process) and its routes directory:
// what the CLI prints is compared with what the typed client gets, and what it writes with the file on disk.

const web = "web:\n  host: 127.0.0.1\n  port: 9\n"
const edited = "web:\n  host: 127.0.0.1\n  port: 10\n"
const invalid = "web:\n  port: 99999\n  bind: nope\n"

const filesServer = Effect.gen(function* () {
  const server = yield* startTestServer({ routeFiles: { "web.yml": web } })
  const client = yield* Effect.service(GatehouseClient).pipe(
    Effect.provide(GatehouseClient.layer({ baseUrl: server.baseUrl, apiKey: server.apiKey }))
  )
  const onDisk = (name: string) => fs.readFileSync(path.join(server.routesDir, name), "utf8")
  const local = (name: string, text: string) => {
    const file = path.join(server.dir, name)
    fs.writeFileSync(file, text)
    return file
  }
  return { server, client, cli: cliAgainst(server), onDisk, local }
})

// The ETag without its quotes, as the CLI shows it.
const bare = (etag: string | undefined) => (etag ?? assert.fail("no ETag")).replace(/^"|"$/g, "")

describe("gatehouse files", () => {
  it.live(
    "list and get: as the API answers; get prints the bytes as they are and the version to write over",
    () =>
      Effect.gen(function* () {
        const { client, cli } = yield* filesServer

        const list = yield* cli(["files", "list"])
        assert.strictEqual(list.code, 0, list.stderr)
        assert.strictEqual(list.stdout, "TYPE    FILENAME\nroutes  web.yml\n")
        const listJson = yield* cli(["files", "list", "--json"])
        assert.deepStrictEqual(JSON.parse(listJson.stdout), yield* client.files.list())

        const read = yield* client.files.readWithEtag({ query: { type: "routes", filename: "web.yml" } })
        const got = yield* cli(["files", "get", "web.yml"])
        assert.strictEqual(got.code, 0, got.stderr)
        assert.strictEqual(got.stdout, web)
        assert.strictEqual(
          got.stderr,
          `gatehouse: routes file web.yml at version ${bare(read.etag)}; to write over this version only: ` +
            `gatehouse files put web.yml --if-match ${bare(read.etag)}\n`
        )
        const gotJson = yield* cli(["files", "get", "web.yml", "--json"])
        assert.deepStrictEqual(JSON.parse(gotJson.stdout), {
          type: "routes",
          filename: "web.yml",
          etag: read.etag,
          content: read.content
        })

        const missing = yield* cli(["files", "get", "nope.yml"])
        assert.strictEqual(missing.code, 1)
        assert.strictEqual(missing.stderr, 'gatehouse: routes file "nope.yml" not found\n')
        const noName = yield* cli(["files", "get"])
        assert.strictEqual(noName.code, 2, noName.stderr)
      }).pipe(Effect.scoped),
    // Five CLI processes, each starting Node with tsx on the sources (about 2 s each; more on a busy machine).
    120_000
  )

  it.live(
    "put writes over the version read; a stale version is refused (412) and the file stays as it is",
    () =>
      Effect.gen(function* () {
        const { client, cli, onDisk, local } = yield* filesServer
        const before = yield* client.files.readWithEtag({ query: { type: "routes", filename: "web.yml" } })

        const put = yield* cli([
          "files",
          "put",
          "web.yml",
          "--if-match",
          bare(before.etag),
          "--from",
          local("e.yml", edited)
        ])
        assert.strictEqual(put.code, 0, put.stderr)
        assert.strictEqual(onDisk("web.yml"), edited)
        const now = yield* client.files.readWithEtag({ query: { type: "routes", filename: "web.yml" } })
        assert.match(
          put.stdout,
          new RegExp(`^routes file web\\.yml written.* \\(${edited.length} bytes, version ${bare(now.etag)}\\)\\n$`)
        )

        // The same edit again, over the version it replaced: someone else's change since is never overwritten.
        const stale = yield* cli(["files", "put", "web.yml", "--if-match", before.etag!], { input: web })
        assert.strictEqual(stale.code, 1)
        assert.strictEqual(
          stale.stderr,
          'gatehouse: routes file "web.yml" was changed since it was read (its ETag no longer matches If-Match): ' +
            "read it again and redo the edit; nothing was written\n"
        )
        assert.strictEqual(onDisk("web.yml"), edited)

        // --json: the API's answer and the version written, from stdin.
        const again = yield* cli(["files", "put", "web.yml", "--if-match", now.etag!, "--json"], { input: web })
        assert.strictEqual(again.code, 0, again.stderr)
        const answer = JSON.parse(again.stdout) as FileWritten & { readonly etag: string }
        assert.deepInclude(answer, { type: "routes", filename: "web.yml", bytes: web.length })
        assert.strictEqual(
          answer.etag,
          (yield* client.files.readWithEtag({ query: { type: "routes", filename: "web.yml" } })).etag
        )
        assert.strictEqual(onDisk("web.yml"), web)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "put needs one condition (else 2); --create only creates; invalid content is refused with each problem",
    () =>
      Effect.gen(function* () {
        const { cli, onDisk, local } = yield* filesServer

        const unsaid = yield* cli(["files", "put", "web.yml"], { input: edited })
        assert.strictEqual(unsaid.code, 2)
        assert.match(unsaid.stderr, /^gatehouse files put: say which version this replaces: --if-match ETAG/)
        const both = yield* cli(["files", "put", "web.yml", "--create", "--force"], { input: edited })
        assert.strictEqual(both.code, 2)
        assert.strictEqual(onDisk("web.yml"), web)

        const exists = yield* cli(["files", "put", "web.yml", "--create"], { input: edited })
        assert.strictEqual(exists.code, 1)
        assert.strictEqual(
          exists.stderr,
          'gatehouse: routes file "web.yml" already exists (If-None-Match: * only creates a file); nothing was written\n'
        )
        const created = yield* cli(["files", "put", "api.yml", "--create"], { input: "api:\n  port: 9\n" })
        assert.strictEqual(created.code, 0, created.stderr)
        assert.strictEqual(onDisk("api.yml"), "api:\n  port: 9\n")

        const refused = yield* cli(["files", "put", "web.yml", "--force"], { input: invalid })
        assert.strictEqual(refused.code, 1)
        assert.strictEqual(
          refused.stderr,
          "gatehouse: validation failed: 2 problems; nothing was written\n" +
            "  web.yml:2:9: web.port: port 99999 is out of range 0–65535\n" +
            "  web.yml:3:9: web.bind: `nope` is not an IP address: `bind` takes an IPv4 or IPv6 literal such as " +
            "0.0.0.0, 127.0.0.1 or ::\n"
        )
        assert.strictEqual(onDisk("web.yml"), web)

        // Bytes that are not UTF-8 are refused before anything is sent: decoded, they would arrive as U+FFFD.
        const latin1 = Buffer.from("web:\n  # café\n  port: 9\n", "latin1")
        const notUtf8 = local("latin1.yml", "")
        fs.writeFileSync(notUtf8, latin1)
        const mangled = yield* cli(["files", "put", "web.yml", "--force", "--from", notUtf8])
        assert.strictEqual(mangled.code, 1)
        assert.strictEqual(
          mangled.stderr,
          `gatehouse: ${notUtf8} is not valid UTF-8: invalid byte 0xe9 at offset ${latin1.indexOf(0xe9)}; ` +
            "nothing was sent\n"
        )
        assert.strictEqual(onDisk("web.yml"), web)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "validate checks content with the server's validator, writing nothing",
    () =>
      Effect.gen(function* () {
        const { client, cli, local, server } = yield* filesServer
        const valid = yield* cli(["files", "validate", local("ok.yml", edited)])
        assert.strictEqual(valid.code, 0, valid.stderr)
        assert.strictEqual(valid.stdout, "valid routes file: 1 route (web)\n")
        const json = yield* cli(["files", "validate", "--json"], { input: edited })
        assert.deepStrictEqual(
          JSON.parse(json.stdout),
          JSON.parse(JSON.stringify(yield* client.files.validate({ query: { type: "routes" }, payload: edited })))
        )
        const file = local("bad.yml", invalid)
        const bad = yield* cli(["files", "validate", file])
        assert.strictEqual(bad.code, 1)
        assert.strictEqual(bad.stderr.split("\n")[1], `  ${file}:2:9: web.port: port 99999 is out of range 0–65535`)
        assert.deepStrictEqual(fs.readdirSync(server.routesDir), ["web.yml"])
      }).pipe(Effect.scoped),
    90_000
  )
})
