import { assert, describe, it } from "@effect/vitest"
import {
  errorCodeOf,
  httpStatusOf,
  ProxmoxAccessDenied,
  ProxmoxCertificateMismatch,
  ProxmoxCertificateUntrusted,
  ProxmoxFailed,
  ProxmoxTimedOut,
  ProxmoxUnreachable
} from "@gatehouse-edge/contract/domain"
import { Effect, Redacted, Schema } from "effect"
import { TestClock } from "effect/testing"
import { makePveClient, type PveClientOptions } from "../../packages/core/src/hypervisor/PveClient.js"
import { PveClusterResources, PveNodeStatus } from "../../packages/core/src/hypervisor/PveSchemas.js"
import type { PveSim } from "../pve-sim/PveSimulator.js"
import { generateCa, generateCertificate } from "../pve-sim/SimCertificate.js"
import { simulator } from "./HypervisorFixture.js"

const tokenClient = (sim: PveSim, patch: Partial<PveClientOptions> = {}) =>
  makePveClient({
    cluster: "sim",
    url: sim.url,
    credentials: { _tag: "Token", tokenId: sim.token.tokenId, secret: Redacted.make(sim.token.secret) },
    tls: { fingerprint: sim.fingerprint, ca: undefined, insecure: false },
    timeoutMs: 5000,
    ...patch
  })

const passwordClient = (sim: PveSim, patch: Partial<PveClientOptions> = {}) =>
  tokenClient(sim, {
    credentials: {
      _tag: "Password",
      username: sim.user.userid,
      password: Redacted.make(sim.user.password),
      realm: undefined
    },
    ...patch
  })

const failure = <A, E>(effect: Effect.Effect<A, E>) => Effect.flip(effect)

describe("PveClient against the simulator", () => {
  it.live("token auth: decodes the envelope; numbers sent as strings are read as numbers", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const client = yield* tokenClient(sim)
        const status = yield* client.get("/nodes/pve1/status", PveNodeStatus)
        assert.strictEqual(typeof status.loadavg[0], "number")
        const resources = yield* client.get("/cluster/resources", PveClusterResources)
        assert.includeMembers(
          resources.map((r) => r.id),
          ["node/pve1", "lxc/101", "lxc/102"]
        )
        assert.strictEqual(sim.requests.at(-1)?.authKind, "token")
      })
    )
  )

  it.live("TLS: a wrong pinned fingerprint is refused before any request is sent, a 502 showing the one seen", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const wrong = sim.fingerprint.replace(/^../, sim.fingerprint.startsWith("00") ? "11" : "00")
        const client = yield* tokenClient(sim, { tls: { fingerprint: wrong, ca: undefined, insecure: false } })
        const error = yield* failure(client.get("/version", Schema.Unknown))
        // Not an outage (503, worth retrying) but a configuration or security problem.
        assert.instanceOf(error, ProxmoxCertificateMismatch)
        assert.deepStrictEqual([error.expected, error.presented], [wrong, sim.fingerprint])
        assert.strictEqual(
          error.message,
          `Proxmox VE cluster "sim": the SHA-256 fingerprint of its TLS certificate, ${sim.fingerprint}, does not ` +
            `match tls.fingerprint (${wrong}); nothing was sent`
        )
        assert.strictEqual(httpStatusOf(errorCodeOf(error)), 502)
        assert.strictEqual(sim.requests.length, 0, "the token never reached the impostor")
      })
    )
  )

  it.live("a node the cluster cannot reach (pveproxy's 595/596/597): unreachable (503), naming the node", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator({ nodes: [{ name: "pve1" }, { name: "pve2" }] })
        const client = yield* tokenClient(sim)
        sim.setNode("pve2", { status: "offline" })
        const offline = yield* failure(client.get("/nodes/pve2/status", Schema.Unknown))
        assert.instanceOf(offline, ProxmoxUnreachable)
        assert.strictEqual(offline.node, "pve2")
        // The cluster answered: the message names the node that did not, not the whole cluster.
        assert.strictEqual(
          offline.message,
          'Proxmox VE node "pve2" of cluster "sim" is unreachable: offline or cut off from the rest of the cluster ' +
            "(595: No route to host)"
        )
        assert.strictEqual(httpStatusOf(errorCodeOf(offline)), 503)
        // 596: the connection to the node broke during TLS or the request; 597: while its answer's body came in.
        for (const [status, reason] of [
          [596, "Connection reset by peer"],
          [597, "Broken pipe"]
        ] as const) {
          sim.fault({ match: "/nodes/pve1/status", status, reason, once: true })
          const broken = yield* failure(client.get("/nodes/pve1/status", Schema.Unknown))
          assert.instanceOf(broken, ProxmoxUnreachable, String(status))
          assert.strictEqual(
            broken.message,
            'Proxmox VE node "pve1" of cluster "sim" is unreachable: offline or cut off from the rest of the cluster ' +
              `(${status}: ${reason})`
          )
          assert.strictEqual(httpStatusOf(errorCodeOf(broken)), 503)
        }
        // A call that names no node: the cluster could not reach one of its nodes, which one is not known.
        sim.fault({ match: "/cluster/resources", status: 597, reason: "Broken pipe", once: true })
        const somewhere = yield* failure(client.get("/cluster/resources", Schema.Unknown))
        assert.instanceOf(somewhere, ProxmoxUnreachable)
        assert.isUndefined(somewhere.node)
        assert.strictEqual(
          somewhere.message,
          'Proxmox VE cluster "sim" is unreachable: a node of the cluster is offline or cut off from the rest of the ' +
            "cluster (597: Broken pipe)"
        )
      })
    )
  )

  it.live("an http:// URL (the config refuses it) fails as unreachable, never as a defect, and sends nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const client = yield* tokenClient(sim, { url: sim.url.replace(/^https:/, "http:") })
        const error = yield* failure(client.get("/version", Schema.Unknown))
        assert.instanceOf(error, ProxmoxUnreachable)
        assert.strictEqual(
          error.message,
          'Proxmox VE cluster "sim" is unreachable: http:// is not supported: the API is HTTPS only'
        )
        assert.strictEqual(sim.requests.length, 0)
      })
    )
  )

  it.live("TLS: the system CAs refuse a self-signed certificate (502); a CA file or insecure: true accept it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const none = yield* tokenClient(sim, { tls: { fingerprint: undefined, ca: undefined, insecure: false } })
        const refused = yield* failure(none.get("/version", Schema.Unknown))
        // Not an outage: retrying will not make the certificate trusted.
        assert.instanceOf(refused, ProxmoxCertificateUntrusted)
        assert.strictEqual(refused.trusted_by, "system")
        assert.strictEqual(
          refused.message,
          'Proxmox VE cluster "sim": the TLS certificate of 127.0.0.1 is not trusted by the system\'s CAs (no ' +
            "tls.ca_file or tls.fingerprint set): self-signed certificate; nothing was sent"
        )
        assert.strictEqual(httpStatusOf(errorCodeOf(refused)), 502)
        assert.strictEqual(sim.requests.length, 0)
        const withCa = yield* tokenClient(sim, { tls: { fingerprint: undefined, ca: sim.certPem, insecure: false } })
        yield* withCa.get("/version", Schema.Unknown)
        const insecure = yield* tokenClient(sim, { tls: { fingerprint: undefined, ca: undefined, insecure: true } })
        yield* insecure.get("/version", Schema.Unknown)
      })
    )
  )

  it.live("TLS: a certificate tls.ca_file does not vouch for (another CA, another name) is a 502 saying why", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // As a PVE node's: signed by its cluster's CA.
        const clusterCa = generateCa()
        const sim = yield* simulator({ certificate: generateCertificate("pve1", { issuer: clusterCa }) })
        const withCa = (ca: string) => tokenClient(sim, { tls: { fingerprint: undefined, ca, insecure: false } })
        // The CA of another cluster.
        const otherCa = yield* withCa(generateCa().certPem)
        const untrusted = yield* failure(otherCa.get("/version", Schema.Unknown))
        assert.instanceOf(untrusted, ProxmoxCertificateUntrusted)
        assert.deepStrictEqual([untrusted.host, untrusted.trusted_by], ["127.0.0.1", "ca_file"])
        assert.strictEqual(
          untrusted.message,
          'Proxmox VE cluster "sim": the TLS certificate of 127.0.0.1 is not trusted by tls.ca_file: ' +
            "unable to verify the first certificate; nothing was sent"
        )
        assert.strictEqual(httpStatusOf(errorCodeOf(untrusted)), 502)
        // The right CA, but a certificate issued for other names than the one in the URL.
        const elsewhere = yield* simulator({
          certificate: generateCertificate("pve2", { issuer: clusterCa, altNames: "DNS:pve2.example.net" })
        })
        const wrongName = yield* tokenClient(elsewhere, {
          tls: { fingerprint: undefined, ca: clusterCa.certPem, insecure: false }
        })
        const misnamed = yield* failure(wrongName.get("/version", Schema.Unknown))
        assert.instanceOf(misnamed, ProxmoxCertificateUntrusted)
        assert.include(
          misnamed.message,
          "is not trusted by tls.ca_file: Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in " +
            "the cert's list"
        )
        assert.deepStrictEqual([sim.requests.length, elsewhere.requests.length], [0, 0], "nothing was sent")
        // The cluster's own CA with the right names: trusted.
        const trusted = yield* withCa(clusterCa.certPem)
        yield* trusted.get("/version", Schema.Unknown)
        assert.strictEqual(sim.requests.length, 1)
        // A connection refused is still an outage (503), never taken for a certificate refused (a new client: no
        // kept-alive connection to reuse).
        yield* Effect.promise(() => sim.stop())
        const refused = yield* failure((yield* withCa(clusterCa.certPem)).get("/version", Schema.Unknown))
        assert.instanceOf(refused, ProxmoxUnreachable)
        assert.include(refused.detail, "ECONNREFUSED")
      })
    )
  )

  it.live("a wrong token: ProxmoxAccessDenied (a 502 to our caller), naming the cluster", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const client = yield* tokenClient(sim, {
          credentials: {
            _tag: "Token",
            tokenId: sim.token.tokenId,
            secret: Redacted.make("00000000-0000-0000-0000-000000000000")
          }
        })
        const error = yield* failure(client.get("/nodes", Schema.Unknown))
        assert.instanceOf(error, ProxmoxAccessDenied)
        assert.strictEqual(error.kind, "unauthenticated")
        assert.match(error.message, /cluster "sim" refused Gatehouse's credentials: Authentication failed!/)
        assert.notInclude(error.message, "00000000-0000")
      })
    )
  )

  it.live("Proxmox errors: the reason phrase of a 500, a 400's parameter errors, a non-JSON answer", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const client = yield* tokenClient(sim)
        const notRunning = yield* failure(client.post("/nodes/pve1/lxc/102/status/stop", Schema.String))
        assert.instanceOf(notRunning, ProxmoxFailed)
        assert.strictEqual(notRunning.status, 500)
        assert.strictEqual(notRunning.detail, "CT 102 not running")
        const badParameter = yield* failure(client.get("/nodes/pve1/lxc/abc/status/current", Schema.Unknown))
        assert.instanceOf(badParameter, ProxmoxFailed)
        assert.match(badParameter.detail, /^Parameter verification failed\. \(vmid: /)
        sim.fault({ match: "/cluster/resources", status: 200, reason: "OK", body: "<html>proxy error</html>" })
        const notJson = yield* failure(client.get("/cluster/resources", Schema.Unknown))
        assert.instanceOf(notJson, ProxmoxFailed)
        assert.match(notJson.detail, /not? .*JSON envelope|other than Proxmox VE's JSON envelope/)
      })
    )
  )

  it.live("a request that gets no answer: ProxmoxTimedOut after the per-request timeout", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const client = yield* tokenClient(sim, { timeoutMs: 200 })
        sim.hang("/nodes/pve1/status")
        const error = yield* failure(client.get("/nodes/pve1/status", Schema.Unknown))
        assert.instanceOf(error, ProxmoxTimedOut)
        assert.strictEqual(error.timeout_ms, 200)
        sim.hang(undefined)
        // The hung socket was abandoned; the next call works.
        yield* client.get("/version", Schema.Unknown)
      })
    )
  )

  it.live("the API down: ProxmoxUnreachable; back up: calls work again", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const client = yield* tokenClient(sim)
        yield* client.get("/version", Schema.Unknown)
        yield* Effect.promise(() => sim.stop())
        const error = yield* failure(client.get("/version", Schema.Unknown))
        assert.instanceOf(error, ProxmoxUnreachable)
        assert.match(error.detail, /ECONNREFUSED|ECONNRESET|socket hang up/)
        yield* Effect.promise(() => sim.start())
        yield* client.get("/version", Schema.Unknown)
      })
    )
  )

  it.live("ticket auth: logs in once, sends the cookie, and CSRFPreventionToken on writes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const client = yield* passwordClient(sim)
        yield* client.get("/nodes", Schema.Unknown)
        yield* client.get("/cluster/resources", Schema.Unknown)
        const upid = yield* client.post("/nodes/pve1/lxc/102/status/start", Schema.String)
        assert.match(upid, /^UPID:pve1:/)
        assert.strictEqual(sim.countRequests("/access/ticket"), 1)
        assert.deepStrictEqual(
          sim.requests.filter((r) => !r.path.endsWith("/access/ticket")).map((r) => r.authKind),
          ["ticket", "ticket", "ticket"]
        )
      })
    )
  )

  it.live("ticket auth: a realm is sent only with a bare user name (PVE appends it even to root@pam)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const [name, realm] = sim.user.userid.split("@") as [string, string]
        const password = Redacted.make(sim.user.password)
        for (const username of [sim.user.userid, name]) {
          const client = yield* passwordClient(sim, {
            credentials: { _tag: "Password", username, password, realm }
          })
          assert.isArray(yield* client.get("/nodes", Schema.Array(Schema.Unknown)), username)
        }
      })
    )
  )

  it.effect("ticket auth: renews with the old ticket before the 2 h expiry (TestClock)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // The simulator judges tickets by its own clock; keep it in step with the TestClock.
        let now = 1_800_000_000_000
        yield* TestClock.setTime(now)
        const sim = yield* simulator({ now: () => now })
        const client = yield* passwordClient(sim)
        yield* client.get("/nodes", Schema.Unknown)
        assert.strictEqual(sim.countRequests("/access/ticket"), 1)
        now += 95 * 60 * 1000
        yield* TestClock.adjust("95 minutes")
        yield* client.get("/nodes", Schema.Unknown)
        assert.strictEqual(sim.countRequests("/access/ticket"), 2, "renewed once")
        yield* client.get("/nodes", Schema.Unknown)
        assert.strictEqual(sim.countRequests("/access/ticket"), 2, "the renewed ticket is used again")
      })
    )
  )

  it.live("ticket auth: a wrong password is an access error, not a crash", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const client = yield* passwordClient(sim, {
          credentials: { _tag: "Password", username: "root@pam", password: Redacted.make("nope"), realm: undefined }
        })
        const error = yield* failure(client.get("/nodes", Schema.Unknown))
        assert.instanceOf(error, ProxmoxAccessDenied)
        assert.match(error.detail, /authentication failure/)
      })
    )
  )
})
