import type { AddressInfo } from "node:net"
import * as net from "node:net"
import type { AuthServiceEffectClient } from "@gatehouse-edge/transport-grpc/client"
import { Effect } from "effect"
import ssh2, { type Connection, type ServerChannel } from "ssh2"
import { findKey, readAuthorizedKeys } from "./AuthorizedKeys.js"
import { decide, type OpenRequests, type Verdict } from "./CheckGate.js"
import type { GateConfig, PolicyRule } from "./GateConfig.js"
import { type Login, plainAddress, ruleFor, sourceOf } from "./Policy.js"
import { runSession } from "./SessionProcess.js"

/** A listening gate: its port (useful with port 0) and how to stop it. */
export interface RunningGate {
  readonly port: number
  /** Stops accepting logins and closes every open connection. */
  readonly close: () => Promise<void>
}

/** Exit status of a refused session: EX_NOPERM from sysexits.h, so scripts can tell it from the command's own. */
export const deniedExitStatus = 77

/**
 * What one client may hold, as sshd's MaxStartups, LoginGraceTime, MaxAuthTries and MaxSessions bound it: ssh2
 * bounds none of them, so without these anybody could keep connections open for good, and a held login could open
 * channels without end (each may buffer its 2 MiB window while the verdict is pending).
 */
export interface GateLimits {
  /** Connections at once, in all (default 256). */
  readonly maxConnections: number
  /** Connections at once from one source (an IPv4 address, an IPv6 /64: one host has many; default 16). */
  readonly maxConnectionsPerSource: number
  /**
   * How long a connection may take to authenticate (default 30 s), and then to run its first command: a
   * connection that does neither is closed, as sshd's LoginGraceTime does.
   */
  readonly loginGraceMs: number
  /** Refused authentication attempts before the connection is closed (default 10; a key probe counts). */
  readonly maxAuthTries: number
  /** Session channels one connection may open (default 10). */
  readonly maxSessions: number
  /**
   * Requests one source (an IPv4 address, an IPv6 /64) may hold open at once (default 4): a login waiting for its verdict, or one that
   * gave up while its request stays pending (until the request's expiry). Past the server's `max_pending` the
   * oldest pending `ssh_check` requests expire, whoever made them (registrations are capped separately): one
   * client must not push out everybody else's, also by logging in and leaving again.
   */
  readonly maxWaitingPerSource: number
  /**
   * How long a client gets to close its side once the gate ends its connection (or a denied session), before the
   * connection is cut (default 5 s): a client that never answers must not keep its place.
   */
  readonly closeGraceMs: number
}

export const defaultGateLimits: GateLimits = {
  maxConnections: 256,
  maxConnectionsPerSource: 16,
  loginGraceMs: 30_000,
  maxAuthTries: 10,
  maxSessions: 10,
  maxWaitingPerSource: 4,
  closeGraceMs: 5000
}

export interface SshGateOptions {
  readonly config: GateConfig
  readonly limits?: Partial<GateLimits> | undefined
  /** The host private key (OpenSSH or PEM). */
  readonly hostKey: Buffer | string
  readonly client: AuthServiceEffectClient
  readonly log: (line: string) => void
}

/** Writes lines on the channel's stderr; a terminal in raw mode needs CR LF. */
const writeLines = (channel: ServerChannel, text: string, pty: boolean) =>
  channel.stderr.write(`${pty ? text.replaceAll("\n", "\r\n") : text}${pty ? "\r\n" : "\n"}`)

/**
 * The SSH server: public-key logins for the configured users, the policy applied at authentication (a login no
 * rule lets in fails like a wrong key, telling an unauthenticated client nothing), and each session held until
 * the connection's verdict. One verdict per connection: the first session shows the banner, later sessions on
 * the same connection wait for the same answer.
 */
export const startSshGate = (options: SshGateOptions): Promise<RunningGate> => {
  const { config, client, log } = options
  const limits = { ...defaultGateLimits, ...options.limits }
  const connections = new Set<Connection>()
  // Every TCP connection, counted and timed from its first byte: ssh2 only hands one over once the client has sent
  // its version line, so a client that sends nothing would otherwise be neither counted nor ever closed.
  const sockets = new Set<net.Socket>()
  const perSource = new Map<string, number>()
  // Requests open (see maxWaitingPerSource), by source (see sourceOf).
  const open = new Map<string, number>()
  // The grace timer of each connection not authenticated yet, by the client's `address:port`.
  const unauthenticated = new Map<string, NodeJS.Timeout>()
  const peerOf = (ip: string | undefined, port: number | undefined) => `${ip}:${port}`
  // Each connection's socket, by the client's `address:port`: what `hangUp` cuts if the client does not close.
  const socketOf = new Map<string, net.Socket>()

  const listener = net.createServer((socket) => {
    const src = sourceOf(socket.remoteAddress ?? "")
    const fromSource = (perSource.get(src) ?? 0) + 1
    if (sockets.size >= limits.maxConnections || fromSource > limits.maxConnectionsPerSource) {
      log(`refused a connection from ${src}: too many connections`)
      return socket.destroy()
    }
    sockets.add(socket)
    perSource.set(src, fromSource)
    const peer = peerOf(socket.remoteAddress, socket.remotePort)
    socketOf.set(peer, socket)
    // Not authenticated in time: closed, as sshd's LoginGraceTime does.
    unauthenticated.set(
      peer,
      setTimeout(() => {
        log(`connection from ${src}: not authenticated within ${limits.loginGraceMs / 1000} s`)
        socket.destroy()
      }, limits.loginGraceMs)
    )
    socket.once("close", () => {
      clearTimeout(unauthenticated.get(peer))
      unauthenticated.delete(peer)
      socketOf.delete(peer)
      sockets.delete(socket)
      const left = (perSource.get(src) ?? 1) - 1
      if (left > 0) perSource.set(src, left)
      else perSource.delete(src)
    })
    server.injectSocket(socket)
  })

  const server = new ssh2.Server({ hostKeys: [options.hostKey], ident: "GatehouseCheckGate" }, (conn, info) => {
    connections.add(conn)
    const src = plainAddress(info.ip)
    const peer = peerOf(info.ip, info.port)
    const disconnected = new AbortController()
    // Ends the connection politely (the client is told), and cuts it if the client has not closed its side in
    // `closeGraceMs`.
    let hungUp = false
    const hangUp = () => {
      if (hungUp) return
      hungUp = true
      conn.end()
      const socket = socketOf.get(peer)
      if (socket === undefined) return
      const cut = setTimeout(() => socket.destroy(), limits.closeGraceMs).unref()
      socket.once("close", () => clearTimeout(cut))
    }
    let admitted: { login: Login; rule: PolicyRule } | undefined
    let verdict: Promise<Verdict> | undefined
    const refusedUsers = new Set<string>()
    let refusals = 0
    let sessions = 0
    const refuse = (ctx: ssh2.AuthContext) => {
      refusals += 1
      ctx.reject(["publickey"])
      if (refusals >= limits.maxAuthTries) conn.end()
    }

    conn.on("authentication", (ctx) => {
      if (ctx.method !== "publickey") return ctx.method === "none" ? ctx.reject(["publickey"]) : refuse(ctx)
      const keysFile = config.users.get(ctx.username)
      const login: Login = { src, dst: config.destination, localUser: ctx.username }
      const rule = keysFile === undefined ? undefined : ruleFor(config.policy, login)
      if (keysFile === undefined || rule === undefined || rule.action === "reject") {
        // The client probes each key without a signature and is refused at the probe: log once per login name
        // (a few names per connection at most), quoted: an unauthenticated client chose it.
        if (!refusedUsers.has(ctx.username) && refusedUsers.size < 8) {
          refusedUsers.add(ctx.username)
          const why = keysFile === undefined ? "not a user of this gate" : "no policy rule admits it"
          log(`refused ${JSON.stringify(ctx.username.slice(0, 64))}@${login.dst} from ${src}: ${why}`)
        }
        return refuse(ctx)
      }
      readAuthorizedKeys(keysFile).then(
        (keys) => {
          const key = findKey(keys, ctx.key.data)
          if (key === undefined) return refuse(ctx)
          // Without a signature the client only asks whether this key would do.
          if (ctx.signature === undefined) return ctx.accept()
          if (key.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) !== true) return refuse(ctx)
          admitted = { login, rule }
          ctx.accept()
        },
        (error: Error) => {
          log(`cannot read ${keysFile}: ${error.message}`)
          refuse(ctx)
        }
      )
    })

    const verdictFor = (channel: ServerChannel, pty: boolean): Promise<Verdict> => {
      if (verdict !== undefined) return verdict
      const { login, rule } = admitted!
      const source = sourceOf(login.src)
      let taken = false
      // When the request made in this place expires, on this machine's clock (its lifetime counted from when the
      // gate learned of it: the server's clock may differ from ours).
      let expiresAt: number | undefined
      const places: OpenRequests = {
        take: () => {
          const held = open.get(source) ?? 0
          if (held >= limits.maxWaitingPerSource) {
            log(`${login.localUser}@${login.dst} from ${login.src} (check): denied, ${held} requests already open`)
            return {
              _tag: "Denied" as const,
              message:
                `Gatehouse: access denied: ${held} requests from ${source} already wait for approval; ` +
                "try again later."
            }
          }
          open.set(source, held + 1)
          taken = true
          return undefined
        },
        created: (request) => {
          expiresAt = Date.now() + Date.parse(request.expires_at) - Date.parse(request.created_at)
        }
      }
      const release = () => {
        const left = (open.get(source) ?? 1) - 1
        if (left > 0) open.set(source, left)
        else open.delete(source)
      }
      const done = () => {
        if (!taken) return
        // The client left while its request was pending: the request stays open on the server until a verdict or
        // its expiry, and keeps the source's place until then, so leaving and logging in again piles up nothing.
        if (disconnected.signal.aborted && expiresAt !== undefined) {
          // At most ~24.8 days: a longer timer fires at once. No TTL is that long; a place held that long is plenty.
          setTimeout(release, Math.min(Math.max(0, expiresAt - Date.now()), 2 ** 31 - 1)).unref()
        } else release()
      }
      verdict = Effect.runPromise(
        decide(client, login, rule, (banner) => writeLines(channel, banner, pty), places),
        { signal: disconnected.signal }
      )
        .finally(done)
        .then((result) => {
          const detail = result._tag === "Denied" && result.detail !== undefined ? ` (${result.detail})` : ""
          log(
            `${login.localUser}@${login.dst} from ${login.src} (${rule.action}): ${result._tag.toLowerCase()}${detail}`
          )
          return result
        })
      return verdict
    }

    conn.on("ready", () => {
      clearTimeout(unauthenticated.get(peer))
      unauthenticated.delete(peer)
      // Authenticated, it has the same grace to run a command (a shell or exec): a connection that holds a place
      // and does nothing, with or without a session channel open, is closed.
      const idle = setTimeout(() => {
        log(`connection from ${src}: no command within ${limits.loginGraceMs / 1000} s`)
        hangUp()
      }, limits.loginGraceMs)
      conn.once("close", () => clearTimeout(idle))
      conn.on("session", (accept, reject) => {
        sessions += 1
        if (sessions > limits.maxSessions) return reject()
        const session = accept()
        let pty = false
        session.on("pty", (accept) => {
          pty = true
          accept?.()
        })
        session.on("window-change", (accept) => accept?.())
        // Like sshd without AcceptEnv: the client sets no variables of the command.
        session.on("env", (_accept, reject) => reject?.())
        session.on("subsystem", (_accept, reject) => reject())
        const start = (channel: ServerChannel, requested: string | undefined) => {
          clearTimeout(idle)
          // A channel the client closed while held must not take the gate down with a write-after-end error.
          channel.on("error", (error: Error) => log(`session from ${src}: ${error.message}`))
          verdictFor(channel, pty).then(
            (result) => {
              if (!channel.writable) return
              if (result._tag === "Denied") {
                writeLines(channel, result.message, pty)
                // The verdict is the connection's: nothing more it may do, so it gives back its place once the
                // client has the denial (the channel's close comes after its exit status and message).
                channel.once("close", hangUp)
                // A client that never closes its side of the channel is hung up on all the same.
                setTimeout(hangUp, limits.closeGraceMs).unref()
                // Its input is read and dropped: a channel closes only once both of its sides have ended.
                channel.resume()
                channel.exit(deniedExitStatus)
                channel.end()
                return
              }
              if (result.message !== undefined) writeLines(channel, result.message, pty)
              runSession(
                channel,
                { requested, fixed: config.session.command, shell: config.session.shell, pty },
                admitted!.login
              )
            },
            // The client left while waiting: nothing to answer.
            () => {}
          )
        }
        session.on("exec", (accept, _reject, info) => start(accept(), info.command))
        session.on("shell", (accept) => start(accept(), undefined))
      })
    })
    conn.on("error", (error) => log(`connection from ${src}: ${error.message}`))
    conn.on("close", () => {
      connections.delete(conn)
      disconnected.abort()
    })
  })

  return new Promise((resolve, reject) => {
    listener.once("error", reject)
    listener.listen(config.listen.port, config.listen.host, () => {
      listener.off("error", reject)
      resolve({
        port: (listener.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            listener.close(() => done())
            for (const conn of connections) conn.end()
            // Those not authenticated (silent, or mid-login): nothing to end politely.
            for (const socket of sockets)
              if (unauthenticated.has(peerOf(socket.remoteAddress, socket.remotePort))) socket.destroy()
          })
      })
    })
  })
}
