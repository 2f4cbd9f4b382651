import { assert, describe, it } from "@effect/vitest"
import {
  errorCodeOf,
  httpStatusOf,
  ProxmoxAccessDenied,
  ProxmoxCertificateMismatch,
  ProxmoxFailed,
  ProxmoxTimedOut,
  ProxmoxUnreachable
} from "@gatehouse-edge/contract/domain"
import { Effect, Redacted, Schema } from "effect"
import { TestClock } from "effect/testing"
import { makePveClient, type PveClientOptions } from "../../packages/core/src/hypervisor/PveClient.js"
import { PveClusterResources, PveNodeStatus } from "../../packages/core/src/hypervisor/PveSchemas.js"
import type { PveSim } from "../pve-sim/PveSimulator.js"
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

  it.live("a node the cluster cannot reach (pveproxy's 595/596): unreachable (503), naming the node", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator({ nodes: [{ name: "pve1" }, { name: "pve2" }] })
        const client = yield* tokenClient(sim)
        sim.setNode("pve2", { status: "offline" })
        const offline = yield* failure(client.get("/nodes/pve2/status", Schema.Unknown))
        assert.instanceOf(offline, ProxmoxUnreachable)
        assert.strictEqual(
          offline.message,
          'Proxmox VE cluster "sim" is unreachable: node "pve2" is offline or cut off from the rest of the cluster ' +
            "(595: No route to host)"
        )
        assert.strictEqual(httpStatusOf(errorCodeOf(offline)), 503)
        // 596: the connection to the node broke during TLS or the request.
        sim.fault({ match: "/nodes/pve1/status", status: 596, reason: "Connection reset by peer", once: true })
        const broken = yield* failure(client.get("/nodes/pve1/status", Schema.Unknown))
        assert.instanceOf(broken, ProxmoxUnreachable)
        assert.include(broken.detail, 'node "pve1" is offline or cut off')
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

  it.live("TLS: the system CAs refuse a self-signed certificate; a CA file or insecure: true accept it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sim = yield* simulator()
        const none = yield* tokenClient(sim, { tls: { fingerprint: undefined, ca: undefined, insecure: false } })
        const refused = yield* failure(none.get("/version", Schema.Unknown))
        assert.instanceOf(refused, ProxmoxUnreachable)
        assert.strictEqual(sim.requests.length, 0)
        const withCa = yield* tokenClient(sim, { tls: { fingerprint: undefined, ca: sim.certPem, insecure: false } })
        yield* withCa.get("/version", Schema.Unknown)
        const insecure = yield* tokenClient(sim, { tls: { fingerprint: undefined, ca: undefined, insecure: true } })
        yield* insecure.get("/version", Schema.Unknown)
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
