import * as path from "node:path"
import { Effect } from "effect"
import { request } from "../../packages/transport-http/test/support/Http.js"
import { freePort } from "../support/FreePort.js"
import { startNamed } from "../support/Named.js"
import { startPebble } from "../support/Pebble.js"
import { tempDir } from "../support/TempDir.js"
import { startTestServer } from "../support/TestServer.js"
import { waitFor } from "../support/WaitFor.js"

/** One `acme.certificates[]` entry. */
export interface TestCertificate {
  readonly name: string
  readonly domains: ReadonlyArray<string>
  readonly challenge: "http-01" | "dns-01"
}

/**
 * A real ACME CA for one test scope: BIND `named` authoritative for `gatehouse.test` (every name → 127.0.0.1,
 * TSIG-signed updates allowed) and `pebble` resolving through it, validating HTTP-01 on `http01Port`; and servers
 * of the real composition configured against them, sharing one data dir so a restart finds what the last one kept.
 */
export const acmeWorld = (options: { readonly validitySeconds?: number } = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir("gh-acme-")
    const named = yield* startNamed(path.join(dir, "named"))
    const http01Port = yield* freePort
    const pebble = yield* startPebble(path.join(dir, "pebble"), {
      dnsServer: `127.0.0.1:${named.port}`,
      httpPort: http01Port,
      ...(options.validitySeconds === undefined ? {} : { validitySeconds: options.validitySeconds })
    })
    const dataDir = path.join(dir, "data")

    /** The `acme:` section for these certificates; `http01Port` elsewhere than pebble's makes HTTP-01 fail. */
    const configYaml = (
      certificates: ReadonlyArray<TestCertificate>,
      overrides: { readonly http01Port?: number } = {}
    ) =>
      [
        "acme:",
        `  directory: ${pebble.directory}`,
        "  email: ops@gatehouse.test",
        `  ca_file: ${pebble.caFile}`,
        `  http01: { addr: "127.0.0.1:${overrides.http01Port ?? http01Port}" }`,
        "  dns01:",
        "    provider: rfc2136",
        `    server: "127.0.0.1:${named.port}"`,
        `    zone: ${named.zone}`,
        `    key_name: ${named.keyName}`,
        `    key_secret: "${named.keySecret}"`,
        "    propagation_timeout: 10s",
        "  certificates:",
        ...certificates.map(
          (c) =>
            `    - { name: ${c.name}, domains: [${c.domains.map((d) => `"${d}"`).join(", ")}], challenge: ${c.challenge} }`
        ),
        ""
      ].join("\n")

    /** A server of the real composition with these certificates, on the world's data dir (scoped). */
    const server = (certificates: ReadonlyArray<TestCertificate>, overrides: { readonly http01Port?: number } = {}) =>
      Effect.gen(function* () {
        const started = yield* startTestServer({
          configYaml: configYaml(certificates, overrides),
          env: { GATEHOUSE_DATA_DIR: dataDir }
        })
        const url = (p: string) => `${started.baseUrl}${p}`
        const certEvents = Effect.map(
          request(url("/events?category=cert&limit=1000"), { key: started.apiKey }),
          (r) => (r.json as ReadonlyArray<{ action: string; data: Record<string, unknown> }>) ?? []
        )
        /** Waits until `count` events `cert/<action>` were recorded (the scheduler's work at start is done). */
        const eventsUntil = (action: string, count = 1, timeoutMs = 30_000) =>
          waitFor(
            certEvents,
            (events) => events.filter((e) => e.action === action).length >= count,
            `cert/${action}`,
            timeoutMs
          )
        return {
          ...started,
          url,
          ws: (p: string) => `${started.wsUrl}${p}`,
          key: started.apiKey,
          certEvents,
          eventsUntil
        }
      })

    return { dir, dataDir, named, pebble, http01Port, configYaml, server }
  })
