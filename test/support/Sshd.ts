import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Effect, type Scope } from "effect"
import { freePort } from "./FreePort.js"

/** The shims (`pct`, `journalctl`) a test node's SSH logins find first on their PATH. */
export const fakebin = path.resolve(import.meta.dirname, "fakebin")

/** A real OpenSSH server on 127.0.0.1, started for one test scope (test-infra §2.1). */
export interface Sshd {
  readonly port: number
  /** The host key as a public key line, `ssh-ed25519 AAAA…` (no comment). */
  readonly hostKeyLine: string
  /** The client private key (OpenSSH format) that `root` may log in with. */
  readonly clientKeyPem: string
  /** The directory put first on every login's PATH. */
  readonly fakebin: string
  /** Every command line the server was asked to run, in order, one per line (read from the remote side's log). */
  readonly execLog: () => ReadonlyArray<string>
  /** The daemon's own log (`-e`: its messages on stderr), for failure messages. */
  readonly log: () => string
  /** Stops the daemon by its PID and waits for it to exit; idempotent (the scope calls it too). */
  readonly stop: Effect.Effect<void>
}

export interface SshdOptions {
  /**
   * Variables every login gets (authorized_keys `environment=`, admitted by `PermitUserEnvironment`), e.g.
   * `GATEHOUSE_LXC_PATH` for the `pct` shim and `GATEHOUSE_JOURNAL_DIR` for the `journalctl` shim. Names must match
   * `GATEHOUSE_*`; values must not contain `"`.
   */
  readonly env?: Readonly<Record<string, string>>
  /** `MaxSessions`: channels one connection may have open at once (default 100; OpenSSH's own default is 10). */
  readonly maxSessions?: number
}

const accepts = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

const exited = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

/**
 * Starts `/usr/sbin/sshd -D -e -f <config>` under `baseDir` (which it fills: per-run ed25519 host and client keys,
 * authorized_keys, sshd_config, the exec logger) on a free loopback port, and waits until the port accepts
 * connections (10 s deadline). Logins are `root` with the client key only; every login's PATH starts with
 * {@link fakebin}. Each command line is appended to `exec.log` by a `ForceCommand` logger, which then runs it with
 * the login shell exactly as sshd would have, so tests can prove on the server side what did (or did not) arrive.
 */
export const startSshd = (baseDir: string, options: SshdOptions = {}): Effect.Effect<Sshd, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const base = path.resolve(baseDir)
    const port = yield* freePort
    yield* Effect.try({
      try: () => {
        fs.mkdirSync(base, { recursive: true })
        fs.chmodSync(base, 0o700)
        fs.mkdirSync("/run/sshd", { recursive: true })
        for (const key of ["host_ed25519", "client_ed25519"]) {
          execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", path.join(base, key)])
        }
        // HOME is the base dir, so the login shell reads no dotfiles of this machine's root (a pyenv init there
        // costs ~0.6 s per command and rewrites PATH).
        const env: Record<string, string> = {
          PATH: `${fakebin}:/usr/sbin:/usr/bin:/sbin:/bin`,
          HOME: base,
          ...options.env
        }
        const environment = Object.entries(env)
          .map(([name, value]) => `environment="${name}=${value}"`)
          .join(",")
        const clientPublic = fs.readFileSync(path.join(base, "client_ed25519.pub"), "utf8").trim()
        fs.writeFileSync(path.join(base, "authorized_keys"), `${environment} ${clientPublic}\n`)
        // The logger runs every command: it records the line, then hands it to the login shell unchanged.
        const logger = path.join(base, "exec-logger")
        fs.writeFileSync(
          logger,
          `#!/bin/sh\nprintf '%s\\n' "$SSH_ORIGINAL_COMMAND" >> '${path.join(base, "exec.log")}'\n` +
            `exec "\${SHELL:-/bin/sh}" -c "$SSH_ORIGINAL_COMMAND"\n`,
          { mode: 0o755 }
        )
        fs.writeFileSync(path.join(base, "exec.log"), "")
        fs.writeFileSync(
          path.join(base, "sshd_config"),
          [
            `Port ${port}`,
            "ListenAddress 127.0.0.1",
            `HostKey ${path.join(base, "host_ed25519")}`,
            `PidFile ${path.join(base, "sshd.pid")}`,
            `AuthorizedKeysFile ${path.join(base, "authorized_keys")}`,
            "AuthenticationMethods publickey",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            "UsePAM no",
            "StrictModes no",
            // A pattern-list (sshd_config(5)): PATH, HOME and the shims' variables, nothing else.
            "PermitUserEnvironment PATH,HOME,GATEHOUSE_*",
            `ForceCommand ${logger}`,
            "AllowTcpForwarding no",
            "X11Forwarding no",
            "PrintMotd no",
            `MaxSessions ${options.maxSessions ?? 100}`,
            "MaxStartups 100:30:200",
            ""
          ].join("\n")
        )
        execFileSync("/usr/sbin/sshd", ["-t", "-f", path.join(base, "sshd_config")])
      },
      catch: (cause) => new Error(`sshd setup failed in ${base}: ${String(cause)}`)
    })
    const output = { log: "" }
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", path.join(base, "sshd_config")], {
          stdio: ["ignore", "pipe", "pipe"]
        })
        child.stdout.on("data", (chunk: Buffer) => {
          output.log += chunk.toString("utf8")
        })
        child.stderr.on("data", (chunk: Buffer) => {
          output.log += chunk.toString("utf8")
        })
        return child
      }),
      (child) =>
        Effect.suspend(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
          return exited(child)
        })
    )
    const stop = Effect.suspend(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      return exited(child)
    })
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) return yield* Effect.fail(new Error(`sshd exited at start: ${output.log}`))
      if (yield* accepts(port)) break
      if (i >= 200) return yield* Effect.fail(new Error(`sshd did not accept connections within 10 s: ${output.log}`))
      yield* Effect.sleep("50 millis")
    }
    const hostKeyLine = fs
      .readFileSync(path.join(base, "host_ed25519.pub"), "utf8")
      .trim()
      .split(/\s+/)
      .slice(0, 2)
      .join(" ")
    return {
      port,
      hostKeyLine,
      clientKeyPem: fs.readFileSync(path.join(base, "client_ed25519"), "utf8"),
      fakebin,
      execLog: () =>
        fs
          .readFileSync(path.join(base, "exec.log"), "utf8")
          .split("\n")
          .filter((line) => line !== ""),
      log: () => output.log,
      stop
    }
  })
