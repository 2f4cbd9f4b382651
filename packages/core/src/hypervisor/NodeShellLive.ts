import { createHash } from "node:crypto"
import { SshFailed, SshHostKeyMismatch, SshUnreachable } from "@gatehouse-edge/contract/domain"
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as RcMap from "effect/RcMap"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Ssh2 from "ssh2"
import { lazyModule } from "../util/LazyModule.js"
import { describePin, fingerprintOf, hostKeyAlgorithmsFor, parseHostKeyPin, pinMatches } from "./HostKeyPin.js"
import { lineSplitter } from "./LineSplitter.js"
import { type CommandResult, NodeShell, type SshError, type SshTarget } from "./NodeShell.js"
import { commandLine } from "./ShellWords.js"

// Loaded with the first SSH connection: a server without SSH access to Proxmox nodes never loads it.
const ssh2Module = lazyModule(() => import("ssh2"))

/** Tuning of {@link make}; every field has a default suited to Proxmox VE nodes on a LAN. */
export interface NodeShellOptions {
  /** How long a connection may take up to authentication before it counts as unreachable (default 10 s). */
  readonly readyTimeout?: Duration.Input
  /** How long an unused connection stays open for the next command (default 60 s). */
  readonly idleTimeToLive?: Duration.Input
  /** The wait after the first failed connect; doubled per further failure (default 0.5 s). */
  readonly backoffInitial?: Duration.Input
  /** The longest wait between connect attempts (default 30 s). */
  readonly backoffMax?: Duration.Input
  /** How much of each of stdout and stderr `run` keeps (default 1 MiB each; the rest is read and dropped). */
  readonly maxOutputBytes?: number
  /**
   * Channels one connection carries at once before another connection to the same node is opened (default 10:
   * OpenSSH's `MaxSessions`, which refuses the eleventh). Raise it for nodes configured with more.
   */
  readonly maxChannelsPerConnection?: number
  /**
   * Connections to one node at most (default 8): with the channels each carries, how many commands and follows
   * run on a node at once. Past that a command fails at once (`SshUnreachable`, 503) instead of opening one more
   * connection: the streams a client may hold are counted in thousands, a node's SSH server is not built for that.
   */
  readonly maxConnectionsPerNode?: number
}

/**
 * One pooled SSH connection; `closed` turns true when its socket ends, so the pool never hands it out again.
 * `channels` counts the channels reserved on it, against the node's per-connection limit: from before the channel
 * is opened until the node confirms its close (see {@link Reservation}).
 */
interface Connection {
  readonly client: Ssh2.Client
  closed: boolean
  channels: number
  /** Channels we closed that the node has not confirmed yet, and when we last closed one (Clock millis). */
  closing: number
  lastCloseAt: number
  /** Completed, and replaced, whenever the node confirms a close: a place may have come free. */
  confirmed: Deferred.Deferred<void>
}

/**
 * One channel's place on a connection (see `acquire`). The caller's scope frees it, unless a channel was opened on
 * it: then the channel's `close` frees it, which ssh2 reports once the node has answered our close. OpenSSH answers
 * only when the remote command has exited, and counts the session against its `MaxSessions` until then; a command
 * that outlives our close (busybox's `tail -F` learns of it only at its next write) would otherwise make the node
 * refuse the next channel while we count the place as free.
 */
interface Reservation {
  readonly connection: Connection
  heldByChannel: boolean
}

/** A connect failure remembered for back-off: the error and the time (Clock millis) before which none is tried. */
interface Backoff {
  readonly failures: number
  readonly retryAt: number
  readonly error: SshError
}

// `lines` keeps at most this many undelivered lines queued, and pauses the channel when this many bytes are read
// but not yet split (resuming below the low mark), so a slow consumer slows the remote command instead of growing
// memory. A line longer than `maxLineChars` (LineSplitter) is delivered in pieces of that size.
const lineQueueSize = 128
const pauseAboveBytes = 64 * 1024
const resumeBelowBytes = 16 * 1024
// Only the first line of stderr reaches an error message; this much is enough to hold it.
const stderrForErrorBytes = 4096
// How long after we closed a channel a command that finds its connection full waits for the node's confirmation
// instead of opening another connection: OpenSSH confirms within milliseconds of the command's exit, so a follow
// closed just before usually frees its place in time. A close not confirmed by then is a command that lingers.
const closeConfirmWaitMs = 1000

const firstLine = (text: string) => text.split("\n", 1)[0]!.replace(/\r$/, "").trim()

const exitFailure = (node: string, exit: ExitInfo | undefined, stderr: string): SshFailed => {
  if (exit === undefined) return new SshFailed({ node, detail: "connection lost before the command finished" })
  const detail = firstLine(stderr)
  const what =
    exit.code === null
      ? `command killed by signal ${exit.signal ?? "unknown"}`
      : `command exited with status ${exit.code}`
  return new SshFailed({ node, detail: detail === "" ? what : `${what}: ${detail}` })
}

interface ExitInfo {
  readonly code: number | null
  readonly signal: string | undefined
}

const onExit = (channel: Ssh2.ClientChannel, record: (exit: ExitInfo) => void) =>
  channel.on("exit", (code: number | null, signal?: string) => record({ code, signal }))

/** Builds the service; the layer's scope owns the pool, so closing it ends every connection. */
export const make = (options: NodeShellOptions = {}) =>
  Effect.gen(function* () {
    const readyTimeoutMs = Duration.toMillis(Duration.fromInputUnsafe(options.readyTimeout ?? "10 seconds"))
    const backoffInitialMs = Duration.toMillis(Duration.fromInputUnsafe(options.backoffInitial ?? "500 millis"))
    const backoffMaxMs = Duration.toMillis(Duration.fromInputUnsafe(options.backoffMax ?? "30 seconds"))
    const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024
    const maxChannels = Math.max(1, options.maxChannelsPerConnection ?? 10)
    const maxConnections = Math.max(1, options.maxConnectionsPerNode ?? 8)
    const stats = { connectionsOpened: 0, connectionsOpen: 0, channelsOpen: 0 }
    // Each channel's exit status, recorded as soon as the channel opens.
    const exits = new WeakMap<Ssh2.ClientChannel, ExitInfo>()
    // The pool is keyed by a string (RcMap compares keys by value); the target behind a key is kept aside because
    // it holds the private key, which must not be part of a printable key.
    const targets = new Map<string, SshTarget>()
    const backoffs = new Map<string, Backoff>()

    const connect = (target: SshTarget): Effect.Effect<Connection, SshError> => {
      const pin = parseHostKeyPin(target.hostKey)
      if (pin === undefined) {
        return Effect.fail(
          new SshFailed({ node: target.node, detail: "the pinned host key is not a key or a SHA256 fingerprint" })
        )
      }
      return Effect.flatMap(ssh2Module, ({ default: ssh2 }) => {
        // ssh2's `connect` throws on a private key it cannot use (encrypted, a public key): checked first, so that
        // is the command's failure (502), not a defect. Its message names the problem, never the key.
        const parsed = ssh2.utils.parseKey(Redacted.value(target.privateKey))
        const unusable =
          parsed instanceof Error
            ? parsed.message
            : (Array.isArray(parsed) ? parsed[0] : parsed)?.isPrivateKey() !== true
              ? "the key does not contain a (valid) private key"
              : undefined
        if (unusable !== undefined) {
          return Effect.fail(new SshFailed({ node: target.node, detail: `cannot use the private key: ${unusable}` }))
        }
        return Effect.callback<Connection, SshError>((resume) => {
          const client = new ssh2.Client()
          const connection: Connection = {
            client,
            closed: false,
            channels: 0,
            closing: 0,
            lastCloseAt: 0,
            confirmed: Deferred.makeUnsafe()
          }
          let settled = false
          let ready = false
          let mismatch: string | undefined
          const settle = (effect: Effect.Effect<Connection, SshError>) => {
            if (settled) return
            settled = true
            resume(effect)
          }
          client.on("ready", () => {
            ready = true
            stats.connectionsOpened++
            stats.connectionsOpen++
            settle(Effect.succeed(connection))
          })
          client.on("error", (error: Error & { level?: string; code?: string }) => {
            if (settled) return // a later error is followed by `close`, which marks the connection dead
            client.destroy()
            if (mismatch !== undefined) {
              return settle(
                Effect.fail(
                  new SshHostKeyMismatch({ node: target.node, expected: describePin(pin), presented: mismatch })
                )
              )
            }
            if (error.level === "client-authentication") {
              return settle(
                Effect.fail(new SshFailed({ node: target.node, detail: `authentication failed as ${target.user}` }))
              )
            }
            const reason =
              error.level === "client-timeout"
                ? `no SSH handshake within ${readyTimeoutMs} ms`
                : error.code !== undefined
                  ? `${error.code} ${target.host}:${target.port}`
                  : error.message
            settle(Effect.fail(new SshUnreachable({ node: target.node, detail: reason })))
          })
          client.on("end", () => {
            connection.closed = true
          })
          client.on("close", () => {
            connection.closed = true
            if (ready) {
              ready = false
              stats.connectionsOpen--
            }
            settle(
              Effect.fail(new SshUnreachable({ node: target.node, detail: "connection closed during the handshake" }))
            )
          })
          const serverHostKey = hostKeyAlgorithmsFor(pin)
          client.connect({
            host: target.host,
            port: target.port,
            username: target.user,
            privateKey: Redacted.value(target.privateKey),
            readyTimeout: readyTimeoutMs,
            // A node that vanishes without closing the TCP connection (power loss, a cut link) would otherwise leave
            // every follow on it hanging: three unanswered keepalives 15 s apart drop the connection.
            keepaliveInterval: 15_000,
            keepaliveCountMax: 3,
            // Returning false makes ssh2 abort the key exchange, before any authentication is sent.
            hostVerifier: (key: Buffer) => {
              if (pinMatches(pin, key)) return true
              mismatch = fingerprintOf(key)
              return false
            },
            ...(serverHostKey === undefined
              ? {}
              : { algorithms: { serverHostKey: [...serverHostKey] as Array<Ssh2.ServerHostKeyAlgorithm> } })
          })
          // Interrupted while connecting (the caller went away): drop the half-open socket.
          return Effect.sync(() => {
            if (!settled) {
              settled = true
              client.destroy()
            }
          })
        })
      })
    }

    const lookup = (key: string): Effect.Effect<Connection, SshError, Scope.Scope> =>
      Effect.gen(function* () {
        const target = targets.get(key)!
        const now = yield* Clock.currentTimeMillis
        const backoff = backoffs.get(key)
        // During back-off fail at once with the last reason: a request must not hang on a node known to be down.
        if (backoff !== undefined && now < backoff.retryAt) {
          const error = backoff.error
          return yield* Effect.fail(
            error instanceof SshUnreachable
              ? new SshUnreachable({
                  node: error.node,
                  detail: `${error.detail} (next attempt in ${backoff.retryAt - now} ms)`
                })
              : error
          )
        }
        const connection = yield* connect(target).pipe(
          Effect.tapError((error) =>
            Effect.gen(function* () {
              const failures = (backoff?.failures ?? 0) + 1
              const wait = Math.min(backoffMaxMs, backoffInitialMs * 2 ** (failures - 1))
              backoffs.set(key, { failures, retryAt: (yield* Clock.currentTimeMillis) + wait, error })
            })
          )
        )
        backoffs.delete(key)
        yield* Effect.addFinalizer(() => Effect.sync(() => connection.client.end()))
        return connection
      })

    const pool = yield* RcMap.make({
      lookup,
      idleTimeToLive: options.idleTimeToLive ?? "60 seconds"
    })

    // The key names everything that makes a connection different; the private key only by its hash.
    const keyOf = (target: SshTarget) =>
      JSON.stringify([
        target.node,
        target.host,
        target.port,
        target.user,
        target.hostKey,
        createHash("sha256").update(Redacted.value(target.privateKey)).digest("base64")
      ])

    /** The live pooled connection in one slot of a target, held until the caller's scope closes. */
    const slotConnection = Effect.fnUntraced(function* (key: string) {
      // RcMap keeps a failed lookup cached like a value; forget it so the next call asks again (and meets the
      // back-off, which lives outside the map).
      const connection = yield* RcMap.get(pool, key).pipe(Effect.tapError(() => RcMap.invalidate(pool, key)))
      if (!connection.closed) return connection
      // The connection dropped since it was pooled: forget it and connect again.
      yield* RcMap.invalidate(pool, key)
      return yield* RcMap.get(pool, key)
    })

    /**
     * Waits, if a channel on the full `connection` was closed by us less than `closeConfirmWaitMs` ago, for the node
     * to confirm a close; true when one was confirmed (the connection may have room now).
     */
    const confirmedClose = Effect.fnUntraced(function* (connection: Connection) {
      if (connection.closing === 0) return false
      const left = connection.lastCloseAt + closeConfirmWaitMs - (yield* Clock.currentTimeMillis)
      if (left <= 0) return false
      const waited = yield* Effect.timeoutOption(Deferred.await(connection.confirmed), Duration.millis(left))
      return Option.isSome(waited)
    })

    /**
     * A connection to `target` with room for one more channel, reserved until the caller's scope closes: the
     * first connection while it has room, then a second one, and so on (a node refuses channels past its
     * `MaxSessions`), up to the node's connection cap. Usually every command shares the first.
     */
    const acquire = Effect.fnUntraced(function* (target: SshTarget) {
      const base = keyOf(target)
      for (let slot = 0; slot < maxConnections; slot++) {
        const key = JSON.stringify([base, slot])
        targets.set(key, target)
        const connection = yield* slotConnection(key)
        if (connection.channels >= maxChannels) {
          if (yield* confirmedClose(connection)) slot-- // look at this connection again
          continue
        }
        connection.channels++
        const reservation: Reservation = { connection, heldByChannel: false }
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            if (!reservation.heldByChannel) connection.channels--
          })
        )
        return reservation
      }
      const detail =
        `${maxConnections * maxChannels} commands already run on it (${maxConnections} connections of ` +
        `${maxChannels} channels, the most Gatehouse opens to one node); try again when one ends`
      return yield* new SshUnreachable({ node: target.node, detail })
    })

    /**
     * An exec channel running `argv` on a reserved place, closed (never signalled: see test-infra §2.3) when the
     * scope closes; the place stays taken until the node confirms the close.
     */
    const openChannel = (reservation: Reservation, target: SshTarget, argv: ReadonlyArray<string>) => {
      const connection = reservation.connection
      return Effect.acquireRelease(
        Effect.gen(function* () {
          const state = { confirmed: false, closedByUs: false }
          const opened = yield* Deferred.make<Ssh2.ClientChannel, SshFailed>()
          const lost = new SshFailed({ node: target.node, detail: "connection lost before the command started" })
          // ssh2 throws synchronously when the socket is already gone.
          yield* Effect.try({
            try: () =>
              connection.client.exec(commandLine(argv), (error, channel) => {
                if (error !== undefined && error !== null) {
                  const reason = `the node refused a command channel: ${error.message}`
                  return Deferred.doneUnsafe(opened, Effect.fail(new SshFailed({ node: target.node, detail: reason })))
                }
                stats.channelsOpen++
                reservation.heldByChannel = true
                channel.once("close", () => {
                  state.confirmed = true
                  stats.channelsOpen--
                  connection.channels--
                  if (state.closedByUs) connection.closing--
                  const confirmed = connection.confirmed
                  connection.confirmed = Deferred.makeUnsafe()
                  Deferred.doneUnsafe(confirmed, Effect.void)
                })
                // From the moment the channel exists: a quick command's exit status can arrive before whoever
                // reads the channel has attached its listeners (it does on Node 24).
                onExit(channel, (info) => exits.set(channel, info))
                Deferred.doneUnsafe(opened, Effect.succeed(channel))
              }),
            catch: () => lost
          })
          return { channel: yield* Deferred.await(opened), state }
        }),
        // Resumed too: a channel paused by back-pressure would never see its end, and ssh2 reports `close` only
        // after it.
        ({ channel, state }) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.sync(() => {
              if (!state.confirmed && !state.closedByUs) {
                state.closedByUs = true
                connection.closing++
                connection.lastCloseAt = now
              }
              channel.close()
              channel.resume()
            })
          )
      ).pipe(Effect.map(({ channel }) => channel))
    }

    const collect = (target: SshTarget, channel: Ssh2.ClientChannel) =>
      Effect.callback<CommandResult, SshFailed>((resume) => {
        const stdout: Array<Buffer> = []
        const stderr: Array<Buffer> = []
        const sizes = { stdout: 0, stderr: 0 }
        const keep = (into: Array<Buffer>, which: "stdout" | "stderr") => (chunk: Buffer) => {
          const room = maxOutputBytes - sizes[which]
          if (room <= 0) return
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk
          into.push(part)
          sizes[which] += part.length
        }
        channel.on("data", keep(stdout, "stdout"))
        channel.stderr.on("data", keep(stderr, "stderr"))
        // ssh2 emits `close` only after stdout ended, so all output is in by then.
        channel.on("close", () => {
          const text = (chunks: Array<Buffer>) => Buffer.concat(chunks).toString("utf8")
          const exit = exits.get(channel)
          if (exit === undefined || exit.code === null) {
            return resume(Effect.fail(exitFailure(target.node, exit, text(stderr))))
          }
          resume(Effect.succeed({ exitCode: exit.code, stdout: text(stdout), stderr: text(stderr) }))
        })
      })

    const run = Effect.fn("NodeShell.run")(function* (target: SshTarget, argv: ReadonlyArray<string>) {
      return yield* Effect.scoped(
        Effect.gen(function* () {
          const reservation = yield* acquire(target)
          const channel = yield* openChannel(reservation, target, argv)
          return yield* collect(target, channel)
        })
      )
    })

    /** Moves the channel's output into the stream's bounded queue, pausing the channel while the queue is full. */
    const pump = (target: SshTarget, channel: Ssh2.ClientChannel, queue: Queue.Queue<string, SshError | Cause.Done>) =>
      Effect.gen(function* () {
        const pending: Array<Buffer> = []
        let pendingBytes = 0
        let paused = false
        let closed = false
        let stderr = ""
        let wake: (() => void) | undefined
        const signal = () => {
          const w = wake
          wake = undefined
          w?.()
        }
        channel.on("data", (chunk: Buffer) => {
          pending.push(chunk)
          pendingBytes += chunk.length
          if (!paused && pendingBytes > pauseAboveBytes) {
            paused = true
            channel.pause()
          }
          signal()
        })
        channel.stderr.on("data", (chunk: Buffer) => {
          if (stderr.length < stderrForErrorBytes) stderr += chunk.toString("utf8")
        })
        channel.on("close", () => {
          closed = true
          signal()
        })
        // The next chunk, or undefined once the channel closed (ssh2 closes it only after the last chunk).
        const next = Effect.callback<Buffer | undefined>((resume) => {
          const take = () => {
            const chunk = pending.shift()
            if (chunk !== undefined) {
              pendingBytes -= chunk.length
              if (paused && pendingBytes < resumeBelowBytes) {
                paused = false
                channel.resume()
              }
              return resume(Effect.succeed(chunk))
            }
            if (closed) return resume(Effect.succeed(undefined))
            wake = take
          }
          take()
          return Effect.sync(() => {
            wake = undefined
          })
        })
        const splitter = lineSplitter()
        while (true) {
          const chunk = yield* next
          if (chunk === undefined) break
          const lines = splitter.push(chunk)
          if (lines.length > 0) yield* Queue.offerAll(queue, lines)
        }
        const last = splitter.end()
        if (last.length > 0) yield* Queue.offerAll(queue, last)
        const exit = exits.get(channel)
        if (exit?.code === 0) return yield* Queue.end(queue)
        return yield* Queue.fail(queue, exitFailure(target.node, exit, stderr))
      })

    const lines = (target: SshTarget, argv: ReadonlyArray<string>): Stream.Stream<string, SshError> =>
      Stream.callback<string, SshError>(
        Effect.fn("NodeShell.lines")(function* (queue) {
          const reservation = yield* acquire(target)
          const channel = yield* openChannel(reservation, target, argv)
          yield* Effect.forkScoped(pump(target, channel, queue))
        }),
        { bufferSize: lineQueueSize, strategy: "suspend" }
      )

    return NodeShell.of({
      connect: Effect.fn("NodeShell.connect")(function* (target: SshTarget) {
        yield* Effect.scoped(acquire(target))
      }),
      run,
      lines,
      stats: Effect.sync(() => ({ ...stats }))
    })
  })

/** The real NodeShell with custom {@link NodeShellOptions}. */
export const layerWith = (options: NodeShellOptions): Layer.Layer<NodeShell> => Layer.effect(NodeShell, make(options))

/**
 * The real NodeShell over ssh2: one pooled connection per target, host keys checked against the pin before
 * authentication, back-off after failed connects. Scoped: closing it ends every connection.
 */
export const layer: Layer.Layer<NodeShell> = layerWith({})
