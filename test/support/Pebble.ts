import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as https from "node:https"
import * as path from "node:path"
import { Effect, type Scope } from "effect"
import { type Daemon, startDaemon } from "./Daemon.js"
import { freePort } from "./FreePort.js"

/** Let's Encrypt's ACME test server (Debian `pebble`) on loopback, with its own TLS certificate. */
export interface Pebble extends Daemon {
  /** `https://127.0.0.1:<port>/dir` */
  readonly directory: string
  /** The PEM file of pebble's own TLS certificate: what a client trusts for the directory (`acme.ca_file`). */
  readonly caFile: string
  /** Where pebble's validation authority connects for HTTP-01 (on the address the DNS server gives, 127.0.0.1). */
  readonly httpPort: number
  /** The root that signs issued certificates (pebble makes a new one at each start), PEM. */
  readonly root: Effect.Effect<string>
  /** The intermediate below it, PEM. */
  readonly intermediate: Effect.Effect<string>
  /** Starts pebble again on the same ports after `stop` (a new root). */
  readonly restart: Effect.Effect<void, Error, Scope.Scope>
}

/** GET over HTTPS trusting `ca` only: status and body (status 0 when nothing answers). */
export const httpsGet = (url: string, ca: string) =>
  Effect.callback<{ readonly status: number; readonly body: string }>((resume) => {
    const request = https.get(url, { ca }, (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, body })))
    })
    request.on("error", () => resume(Effect.succeed({ status: 0, body: "" })))
  })

/**
 * Starts `pebble` (test-infra "ACME: pebble") in `dir`: its TLS certificate for 127.0.0.1/localhost made with
 * `openssl`, listen and management ports free on loopback, `httpPort` as given (or a free one), names resolved by
 * `dnsServer` (`host:port`). `PEBBLE_VA_NOSLEEP=1` validates at once; nonces are never rejected and
 * authorizations never reused, so every order goes through its challenges. `validitySeconds` sets the lifetime of
 * issued certificates.
 */
export const startPebble = (
  dir: string,
  options: { readonly dnsServer: string; readonly httpPort?: number; readonly validitySeconds?: number }
): Effect.Effect<Pebble, Error, Scope.Scope> =>
  Effect.gen(function* () {
    fs.mkdirSync(dir, { recursive: true })
    const caFile = path.join(dir, "pebble-cert.pem")
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30"],
        ...["-keyout", path.join(dir, "pebble-key.pem"), "-out", caFile, "-subj", "/CN=localhost"],
        ...["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
      ],
      { stdio: "ignore" }
    )
    const ca = fs.readFileSync(caFile, "utf8")
    const [listen, management, tls] = [yield* freePort, yield* freePort, yield* freePort]
    const httpPort = options.httpPort ?? (yield* freePort)
    fs.writeFileSync(
      path.join(dir, "pebble.json"),
      JSON.stringify({
        pebble: {
          listenAddress: `127.0.0.1:${listen}`,
          managementListenAddress: `127.0.0.1:${management}`,
          certificate: caFile,
          privateKey: path.join(dir, "pebble-key.pem"),
          httpPort,
          tlsPort: tls,
          ocspResponderURL: "",
          externalAccountBindingRequired: false,
          ...(options.validitySeconds === undefined ? {} : { certificateValidityPeriod: options.validitySeconds })
        }
      })
    )
    const directory = `https://127.0.0.1:${listen}/dir`
    const start = startDaemon({
      label: "pebble",
      command: "pebble",
      args: ["-config", path.join(dir, "pebble.json"), "-dnsserver", options.dnsServer],
      env: { PEBBLE_VA_NOSLEEP: "1", PEBBLE_WFE_NONCEREJECT: "0", PEBBLE_AUTHZREUSE: "0" },
      ready: Effect.map(httpsGet(directory, ca), (reply) => reply.status === 200)
    })
    let daemon = yield* start
    const fromManagement = (p: string) =>
      Effect.map(httpsGet(`https://127.0.0.1:${management}${p}`, ca), (reply) => reply.body)
    return {
      get pid() {
        return daemon.pid
      },
      log: () => daemon.log(),
      stop: Effect.suspend(() => daemon.stop),
      restart: Effect.map(start, (started) => {
        daemon = started
      }),
      directory,
      caFile,
      httpPort,
      root: fromManagement("/roots/0"),
      intermediate: fromManagement("/intermediates/0")
    }
  })
