import type { AddressInfo } from "node:net"
import type { AuthServiceEffectClient } from "@gatehouse-edge/transport-grpc/client"
import { Effect } from "effect"
import ssh2, { type Connection, type ServerChannel } from "ssh2"
import { findKey, readAuthorizedKeys } from "./AuthorizedKeys.js"
import { decide, type Verdict } from "./CheckGate.js"
import type { GateConfig, PolicyRule } from "./GateConfig.js"
import { type Login, plainAddress, ruleFor } from "./Policy.js"
import { runSession } from "./SessionProcess.js"

/** A listening gate: its port (useful with port 0) and how to stop it. */
export interface RunningGate {
  readonly port: number
  /** Stops accepting logins and closes every open connection. */
  readonly close: () => Promise<void>
}

/** Exit status of a refused session: EX_NOPERM from sysexits.h, so scripts can tell it from the command's own. */
export const deniedExitStatus = 77

export interface SshGateOptions {
  readonly config: GateConfig
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
  const connections = new Set<Connection>()

  const server = new ssh2.Server({ hostKeys: [options.hostKey], ident: "SSH-2.0-GatehouseCheckGate" }, (conn, info) => {
    connections.add(conn)
    const src = plainAddress(info.ip)
    const disconnected = new AbortController()
    let admitted: { login: Login; rule: PolicyRule } | undefined
    let verdict: Promise<Verdict> | undefined
    const refusedUsers = new Set<string>()

    conn.on("authentication", (ctx) => {
      if (ctx.method !== "publickey") return ctx.reject(["publickey"])
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
        return ctx.reject(["publickey"])
      }
      readAuthorizedKeys(keysFile).then(
        (keys) => {
          const key = findKey(keys, ctx.key.data)
          if (key === undefined) return ctx.reject(["publickey"])
          // Without a signature the client only asks whether this key would do.
          if (ctx.signature === undefined) return ctx.accept()
          if (key.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(["publickey"])
          admitted = { login, rule }
          ctx.accept()
        },
        (error: Error) => {
          log(`cannot read ${keysFile}: ${error.message}`)
          ctx.reject(["publickey"])
        }
      )
    })

    const verdictFor = (channel: ServerChannel, pty: boolean): Promise<Verdict> => {
      if (verdict !== undefined) return verdict
      const { login, rule } = admitted!
      verdict = Effect.runPromise(
        decide(client, login, rule, (banner) => writeLines(channel, banner, pty)),
        { signal: disconnected.signal }
      ).then((result) => {
        log(`${login.localUser}@${login.dst} from ${login.src} (${rule.action}): ${result._tag.toLowerCase()}`)
        return result
      })
      return verdict
    }

    conn.on("ready", () => {
      conn.on("session", (accept) => {
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
          // A channel the client closed while held must not take the gate down with a write-after-end error.
          channel.on("error", (error: Error) => log(`session from ${src}: ${error.message}`))
          verdictFor(channel, pty).then(
            (result) => {
              if (!channel.writable) return
              if (result._tag === "Denied") {
                writeLines(channel, result.message, pty)
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
    server.once("error", reject)
    server.listen(config.listen.port, config.listen.host, () => {
      server.off("error", reject)
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            for (const conn of connections) conn.end()
          })
      })
    })
  })
}
