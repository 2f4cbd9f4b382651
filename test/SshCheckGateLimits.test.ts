import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { AuthServiceCallError, type AuthServiceEffectClient } from "@gatehouse-edge/transport-grpc/client"
import { Deferred, Effect, Exit, Stream } from "effect"
import ssh2 from "ssh2"
import { readAuthorizedKeys } from "../examples/ssh-check-gate/AuthorizedKeys.js"
import { decide } from "../examples/ssh-check-gate/CheckGate.js"
import { type GateConfig, parseGateConfig } from "../examples/ssh-check-gate/GateConfig.js"
import { deniedExitStatus, type GateLimits, startSshGate } from "../examples/ssh-check-gate/SshGate.js"
import { parseableKeyPair } from "./support/SshKeys.js"
import { tempDir } from "./support/TempDir.js"
import { waitFor } from "./support/WaitFor.js"

/*
 * The gate's own defences, without a Gatehouse server: what an unauthenticated or a key-holding client may hold,
 * the authorized_keys lines it takes, the plaintext it refuses, and what a user is told when the server fails.
 * Its logins through the real OpenSSH client are in SshCheckGate.test.ts.
 */

const configIn = (dir: string, grpc: string, extra: ReadonlyArray<string> = [], action = "accept") =>
  parseGateConfig(
    [
      "listen: 127.0.0.1:0",
      "destination: web1",
      "host_key: ./host_key",
      "gatehouse:",
      `  grpc: ${JSON.stringify(grpc)}`,
      "  api_key_file: ./api.key",
      ...extra,
      "users:",
      "  root: ./authorized_keys",
      "policy:",
      `  - { users: [root], action: ${action} }`
    ].join("\n"),
    path.join(dir, "gate.yml")
  )

/**
 * A gate whose policy lets `root` in at once (no server is asked), or — with a `client` — checks root's logins
 * with it; with `limits`. Its port and log.
 */
const runGate = (dir: string, limits: Partial<GateLimits>, client?: AuthServiceEffectClient) =>
  Effect.gen(function* () {
    const config = configIn(dir, "127.0.0.1:1", [], client === undefined ? "accept" : "check") as GateConfig
    const lines: Array<string> = []
    const gate = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startSshGate({
          config,
          limits,
          hostKey: parseableKeyPair().private,
          client: client ?? ({} as AuthServiceEffectClient),
          log: (line) => lines.push(line)
        })
      ),
      (gate) => Effect.promise(() => gate.close())
    )
    return { port: gate.port, lines }
  })

/** A TCP connection to the gate that says nothing; resolves when the gate closes it. */
const silentConnection = (port: number) =>
  Effect.promise(
    () =>
      new Promise<{ closed: Promise<void> }>((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => resolve({ closed }))
        const closed = new Promise<void>((done) => socket.on("close", () => done()))
        socket.on("error", () => {})
        // Read what the gate sends (its version line): a paused socket would not notice the gate closing it.
        socket.resume()
      })
  )

const deadline = <A>(what: string, promise: Promise<A>) =>
  Effect.promise(() => promise).pipe(
    Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die(new Error(`timed out: ${what}`)) })
  )

describe("examples/ssh-check-gate: what a client may hold", () => {
  it.live("a connection that does not authenticate within the grace time is closed", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-limits-")
      const { port, lines } = yield* runGate(dir, { loginGraceMs: 300 })
      const silent = yield* silentConnection(port)
      yield* deadline("the silent connection closed", silent.closed)
      assert.isTrue(lines.some((line) => line.includes("not authenticated within 0.3 s")))
    }).pipe(Effect.scoped)
  )

  it.live("past the connections one source may hold, a new one is closed at once", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-limits-")
      const { port, lines } = yield* runGate(dir, { maxConnectionsPerSource: 2 })
      const held = [yield* silentConnection(port), yield* silentConnection(port)]
      const third = yield* silentConnection(port)
      yield* deadline("the third connection closed", third.closed)
      assert.isTrue(lines.some((line) => line.includes("too many connections")))
      // The first two are still open: closed only when the gate stops.
      const stillOpen = yield* Effect.promise(() =>
        Promise.race([held[0]!.closed.then(() => false), new Promise<boolean>((r) => setImmediate(() => r(true)))])
      )
      assert.isTrue(stillOpen)
    }).pipe(Effect.scoped)
  )

  it.live("an authenticated connection that runs no command within the grace time is closed, session or not", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-limits-")
      const pair = parseableKeyPair()
      fs.writeFileSync(path.join(dir, "authorized_keys"), `${pair.public}\n`)
      // Time enough to log in on a loaded machine; the same time again idle, then it is closed.
      const { port, lines } = yield* runGate(dir, { loginGraceMs: 2000 })
      const loggedIn = (openSession: boolean) =>
        Effect.gen(function* () {
          const client = new ssh2.Client()
          yield* Effect.addFinalizer(() => Effect.sync(() => client.end()))
          const closed = new Promise<void>((resolve) => client.on("close", () => resolve()))
          yield* deadline(
            "the login",
            new Promise<void>((resolve, reject) => {
              client.on("ready", () => resolve())
              client.on("error", reject)
              client.on("close", () => reject(new Error("closed before the login completed")))
              client.connect({ host: "127.0.0.1", port, username: "root", privateKey: pair.private })
            })
          )
          // A session channel whose only request (a subsystem) is refused: open, yet no command.
          if (openSession) client.subsys("sftp", () => {})
          return closed
        })
      const idle = yield* loggedIn(false)
      const withSession = yield* loggedIn(true)
      yield* deadline("the idle connection closed", idle)
      yield* deadline("the connection with an idle session closed", withSession)
      assert.strictEqual(lines.filter((line) => line.includes("no command within 2 s")).length, 2)
    }).pipe(Effect.scoped)
  )

  it.live("a client that does not close its side when the gate ends the connection is cut closeGraceMs later", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-limits-")
      const pair = parseableKeyPair()
      fs.writeFileSync(path.join(dir, "authorized_keys"), `${pair.public}\n`)
      // One connection from this source at a time: the next one is let in only once the gate let the first go.
      const { port, lines } = yield* runGate(dir, { loginGraceMs: 2000, closeGraceMs: 300, maxConnectionsPerSource: 1 })
      // Between the client and the gate, a relay that passes bytes both ways but never passes on an end: the gate
      // sees a client that does not answer its end (the client itself would close at once).
      const gateEnded = yield* Deferred.make<void>()
      const relay = net.createServer({ allowHalfOpen: true }, (client) => {
        const toGate = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true })
        toGate.once("end", () => Deferred.doneUnsafe(gateEnded, Exit.void))
        client.on("data", (chunk) => toGate.write(chunk))
        toGate.on("data", (chunk) => client.write(chunk))
        for (const socket of [client, toGate]) socket.on("error", () => {})
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", () => resolve()))),
        () => Effect.sync(() => relay.close())
      )
      const client = new ssh2.Client()
      yield* Effect.addFinalizer(() => Effect.sync(() => client.destroy()))
      client.on("error", () => {})
      yield* deadline(
        "the login",
        new Promise<void>((resolve) => {
          client.on("ready", () => resolve())
          client.connect({
            host: "127.0.0.1",
            port: (relay.address() as net.AddressInfo).port,
            username: "root",
            privateKey: pair.private
          })
        })
      )
      // No command: the gate ends the connection after the grace time, and the relay does not pass that on.
      yield* Deferred.await(gateEnded).pipe(
        Effect.timeoutOrElse({
          duration: "10 seconds",
          orElse: () => Effect.die(new Error("timed out: the gate's end"))
        })
      )
      // Whether a new connection is let in (the gate sends its version line) or refused (closed at once).
      const letIn = Effect.promise(
        () =>
          new Promise<boolean>((resolve) => {
            const socket = net.connect(port, "127.0.0.1")
            socket.on("error", () => {})
            socket.once("data", () => {
              socket.destroy()
              resolve(true)
            })
            socket.once("close", () => resolve(false))
          })
      )
      yield* waitFor(letIn, (admitted) => admitted, "the place of the connection the gate cut")
      assert.isTrue(lines.some((line) => line.includes("no command within 2 s")))
    }).pipe(Effect.scoped)
  )

  it.live("an authenticated connection opens at most maxSessions session channels", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-limits-")
      const pair = parseableKeyPair()
      fs.writeFileSync(path.join(dir, "authorized_keys"), `${pair.public}\n`)
      const { port } = yield* runGate(dir, { maxSessions: 2 })
      const client = new ssh2.Client()
      yield* Effect.addFinalizer(() => Effect.sync(() => client.end()))
      yield* deadline(
        "the login",
        new Promise<void>((resolve, reject) => {
          client.on("ready", () => resolve())
          client.on("error", reject)
          client.connect({ host: "127.0.0.1", port, username: "root", privateKey: pair.private })
        })
      )
      const exec = () =>
        new Promise<string>((resolve) =>
          client.exec("true", (error, channel) => {
            if (error !== undefined && error !== null) return resolve(`refused: ${error.message}`)
            channel.on("close", () => resolve("ran"))
            channel.resume()
          })
        )
      const outcomes = yield* deadline("three sessions", Promise.all([exec(), exec(), exec()]))
      assert.deepStrictEqual(
        outcomes
          .map((outcome) => (outcome.startsWith("refused: (SSH) Channel open failure") ? "refused" : outcome))
          .sort(),
        ["ran", "ran", "refused"]
      )
    }).pipe(Effect.scoped)
  )
})

/** Logs in as root with `key` and runs `true`: what it wrote on stderr and how it ended (or the first stderr). */
const login = (port: number, key: string, onStderr?: (text: string) => void) =>
  Effect.acquireRelease(
    Effect.sync(() => new ssh2.Client()),
    (client) => Effect.sync(() => client.end())
  ).pipe(
    Effect.flatMap((client) =>
      Effect.promise(
        () =>
          new Promise<{ stderr: string; code: number | undefined }>((resolve) => {
            client.on("error", () => resolve({ stderr: "connection error", code: undefined }))
            client.on("ready", () =>
              client.exec("true", (error, channel) => {
                if (error !== undefined && error !== null) return resolve({ stderr: error.message, code: undefined })
                let stderr = ""
                let code: number | undefined
                channel.stderr.on("data", (chunk: Buffer) => {
                  stderr += chunk.toString("utf8")
                  onStderr?.(stderr)
                })
                channel.on("exit", (exitCode: number) => {
                  code = exitCode
                })
                channel.on("close", () => resolve({ stderr, code }))
                channel.resume()
              })
            )
            client.connect({ host: "127.0.0.1", port, username: "root", privateKey: key })
          })
      )
    )
  )

/**
 * A server that takes requests and never decides them; each expires `expiresInMs` after it was made, by a clock
 * `clockSkewMs` off the gate's. `list` answers an approval covering root's logins from 127.0.0.1 to web1 once
 * `approve()` was called.
 */
const undecidingServer = (expiresInMs = 60_000, clockSkewMs = 0) => {
  let created = 0
  let approved = false
  const requestOf = (n: number, state: string, input: { src: string; dst: string; local_user: string }) => ({
    auth_id: `ghreq_${String(n).padStart(24, "0")}`,
    kind: "ssh_check",
    state,
    created_at: new Date(Date.now() + clockSkewMs).toISOString(),
    expires_at: new Date(Date.now() + clockSkewMs + expiresInMs).toISOString(),
    ...(state === "approved" ? { decided_at: new Date().toISOString(), decided_by: "api-key:admin" } : {}),
    ssh_check: input
  })
  const client = {
    list: () =>
      Effect.sync(() =>
        approved ? [requestOf(0, "approved", { src: "127.0.0.1", dst: "web1", local_user: "root" })] : []
      ),
    create: (input: { ssh_check: { src: string; dst: string; local_user: string } }) =>
      Effect.sync(() => requestOf(++created, "pending", input.ssh_check)),
    watch: () => Stream.never
  } as unknown as AuthServiceEffectClient
  return {
    client,
    created: () => created,
    approve: () => {
      approved = true
    }
  }
}

/** A checked login that shows the banner (then gives up: the connection closes) or ends first, with its stderr. */
const tryLogin = (port: number, key: string) =>
  Effect.gen(function* () {
    const bannerShown = yield* Deferred.make<void>()
    return yield* login(port, key, (text) => {
      if (text.includes("needs an operator's approval")) Deferred.doneUnsafe(bannerShown, Exit.void)
    }).pipe(Effect.raceFirst(Effect.as(Deferred.await(bannerShown), { stderr: "banner", code: undefined })))
  }).pipe(Effect.scoped, Effect.timeout("10 seconds"))

describe("examples/ssh-check-gate: requests a source holds open", () => {
  it.live("a denied login's connection is closed once the denial is told: it holds no place", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-denied-")
      const pair = parseableKeyPair()
      fs.writeFileSync(path.join(dir, "authorized_keys"), `${pair.public}\n`)
      const { port } = yield* runGate(dir, { maxWaitingPerSource: 0 }, undecidingServer().client)
      const client = new ssh2.Client()
      yield* Effect.addFinalizer(() => Effect.sync(() => client.end()))
      const closed = new Promise<void>((resolve) => client.on("close", () => resolve()))
      const code = yield* deadline(
        "the denied login",
        new Promise<number | undefined>((resolve, reject) => {
          client.on("error", reject)
          client.on("ready", () =>
            client.exec("true", (error, channel) => {
              if (error !== undefined && error !== null) return reject(error)
              let code: number | undefined
              channel.on("exit", (exitCode: number) => {
                code = exitCode
              })
              channel.on("close", () => resolve(code))
              channel.resume()
            })
          )
          client.connect({ host: "127.0.0.1", port, username: "root", privateKey: pair.private })
        })
      )
      assert.strictEqual(code, deniedExitStatus)
      yield* deadline("the denied connection closed by the gate", closed)
    }).pipe(Effect.scoped)
  )

  it.live("past maxWaitingPerSource, a source's next checked login is denied at once, making no request", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-waiting-")
      const pair = parseableKeyPair()
      fs.writeFileSync(path.join(dir, "authorized_keys"), `${pair.public}\n`)
      const server = undecidingServer()
      const { port } = yield* runGate(dir, { maxWaitingPerSource: 1 }, server.client)
      const bannerShown = yield* Deferred.make<void>()
      yield* Effect.forkScoped(
        login(port, pair.private, (text) => {
          if (text.includes("needs an operator's approval")) Deferred.doneUnsafe(bannerShown, Exit.void)
        }).pipe(Effect.scoped)
      )
      yield* Deferred.await(bannerShown).pipe(Effect.timeout("10 seconds"))
      const second = yield* login(port, pair.private).pipe(Effect.scoped, Effect.timeout("10 seconds"))
      assert.strictEqual(second.code, deniedExitStatus)
      assert.include(second.stderr, "1 requests from 127.0.0.1 already wait for approval; try again later.")
      assert.strictEqual(server.created(), 1, "the second login made no request")
    }).pipe(Effect.scoped)
  )

  it.live("a login that gave up keeps its request's place until the request expires: leaving piles up nothing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-abandoned-")
      const pair = parseableKeyPair()
      fs.writeFileSync(path.join(dir, "authorized_keys"), `${pair.public}\n`)
      // The server's clock is an hour behind the gate's: the request's lifetime counts, not its time stamps.
      const server = undecidingServer(3_000, -3_600_000)
      const { port } = yield* runGate(dir, { maxWaitingPerSource: 1 }, server.client)
      assert.strictEqual((yield* tryLogin(port, pair.private)).stderr, "banner")
      // That login left (its connection closed), and its request is still pending on the server.
      const next = yield* tryLogin(port, pair.private)
      assert.strictEqual(next.code, deniedExitStatus)
      assert.include(next.stderr, "1 requests from 127.0.0.1 already wait for approval")
      assert.strictEqual(server.created(), 1)
      // Once that request has expired, the source may ask again.
      const deadline = Date.now() + 15_000
      let later = yield* tryLogin(port, pair.private)
      while (later.stderr !== "banner" && Date.now() < deadline) later = yield* tryLogin(port, pair.private)
      assert.strictEqual(later.stderr, "banner", "a login after the request's expiry is held for a new request")
      assert.strictEqual(server.created(), 2)
    }).pipe(Effect.scoped)
  )

  it.live("a source at its limit is still let in by an approval that covers the login", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-covered-")
      const pair = parseableKeyPair()
      fs.writeFileSync(path.join(dir, "authorized_keys"), `${pair.public}\n`)
      const server = undecidingServer()
      const { port } = yield* runGate(dir, { maxWaitingPerSource: 1 }, server.client)
      assert.strictEqual((yield* tryLogin(port, pair.private)).stderr, "banner")
      server.approve()
      const covered = yield* tryLogin(port, pair.private)
      assert.include(covered.stderr, "covered by ghreq_000000000000000000000000")
      assert.notStrictEqual(covered.code, deniedExitStatus)
      assert.strictEqual(server.created(), 1, "the covered login made no request")
    }).pipe(Effect.scoped)
  )
})

describe("examples/ssh-check-gate: authorized_keys, plaintext and failures", () => {
  it.live("an authorized_keys line with options (from=, command=, restrict, cert-authority) is not a key here", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-keys-")
      const [plain, restricted, authority] = [parseableKeyPair(), parseableKeyPair(), parseableKeyPair()]
      const file = path.join(dir, "authorized_keys")
      fs.writeFileSync(
        file,
        [
          `from="192.0.2.1",command="/usr/bin/true",restrict ${restricted.public}`,
          `cert-authority ${authority.public}`,
          "# a comment",
          plain.public
        ].join("\n")
      )
      const keys = yield* Effect.promise(() => readAuthorizedKeys(file))
      const publicOf = (line: string) => (ssh2.utils.parseKey(line) as ssh2.ParsedKey).getPublicSSH()
      assert.deepStrictEqual(
        keys.map((key) => key.getPublicSSH()),
        [publicOf(plain.public)]
      )
    }).pipe(Effect.scoped)
  )

  it.live("plaintext gRPC off loopback is refused in the config: TLS (ca) or the unix socket", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-config-")
      const refused = configIn(dir, "gatehouse.example:50443")
      assert.deepStrictEqual("problems" in refused ? refused.problems : [], [
        `${path.join(dir, "gate.yml")}: gatehouse.grpc: gatehouse.example:50443 is not on loopback: ` +
          "give ca (TLS), or use unix_socket"
      ])
      for (const address of ["127.0.0.1:50443", "[::1]:50443", "localhost:50443"])
        assert.notProperty(configIn(dir, address), "problems", address)
      assert.notProperty(configIn(dir, "gatehouse.example:50443", ["  ca: ./ca.pem"]), "problems")
    }).pipe(Effect.scoped)
  )

  it.live("gatehouse.call_timeout bounds each call to the server: 10 s unless given, at least 100 ms", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-gate-config-")
      const timeoutOf = (extra: ReadonlyArray<string>) => {
        const config = configIn(dir, "127.0.0.1:50443", extra)
        return "problems" in config ? config.problems : config.gatehouse.callTimeoutMs
      }
      assert.strictEqual(timeoutOf([]), 10_000)
      assert.strictEqual(timeoutOf(["  call_timeout: 2s"]), 2000)
      const [problem] = timeoutOf(["  call_timeout: 10ms"]) as ReadonlyArray<string>
      assert.include(problem, "gatehouse.call_timeout: must be at least 100ms, got 10ms")
    }).pipe(Effect.scoped)
  )

  it.effect("a server that cannot be reached denies the login without telling the user its address", () =>
    Effect.gen(function* () {
      const unreachable = new AuthServiceCallError({
        status: 14,
        code: "unavailable",
        message: "Name resolution failed for target dns:gatehouse.internal.example:50443",
        requestId: undefined,
        details: undefined
      })
      const client = { list: () => Effect.fail(unreachable) } as unknown as AuthServiceEffectClient
      const verdict = yield* decide(
        client,
        { src: "127.0.0.1", dst: "web1", localUser: "root" },
        { action: "check", checkPeriodMs: 0, checkScope: "source_destination" } as never,
        () => {}
      )
      assert.strictEqual(verdict._tag, "Denied")
      if (verdict._tag !== "Denied") return
      assert.notInclude(verdict.message, "gatehouse.internal.example")
      assert.strictEqual(
        verdict.message,
        "Gatehouse: access denied: the approval service could not be reached; try again later."
      )
      assert.include(verdict.detail, "gatehouse.internal.example")
    })
  )
})
