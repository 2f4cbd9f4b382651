import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, type Scope } from "effect"
import {
  type ContainerEngine,
  engineCall,
  killEverythingUnder,
  startEngineDaemon,
  unmountUnder
} from "./EngineHarness.js"

/** A real Docker engine for one test scope (see {@link ContainerEngine}), which can also be crashed. */
export interface Dockerd extends ContainerEngine {
  /** Kills the engine (SIGKILL: a crash; its connections are cut mid-response); `start` brings it back. */
  readonly kill: Effect.Effect<void>
}

/** Where {@link startDockerdWith} also listens: TCP on loopback, only with TLS and client certificates. */
export interface DockerdTcp {
  readonly port: number
  readonly ca: string
  readonly cert: string
  readonly key: string
}

/**
 * Starts `dockerd` (Debian `docker.io`) as test-infra §1.2 does: its own data root, exec root and socket in a
 * short temp dir, no bridge, no iptables, no NAT — tests run containers with NetworkMode `none` or `host` only.
 * With `tcp`, it also listens there with `--tlsverify` (clients need a certificate of `ca`).
 */
export const startDockerdWith = (options: { readonly tcp?: DockerdTcp }): Effect.Effect<Dockerd, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const engine = yield* startEngineDaemon({
      label: "dockerd",
      tempPrefix: "ghd-",
      command: "dockerd",
      args: (base, socket) => [
        ...["--host", `unix://${socket}`, "--data-root", path.join(base, "data")],
        ...["--exec-root", path.join(base, "exec"), "--pidfile", path.join(base, "dockerd.pid")],
        ...["--iptables=false", "--ip6tables=false", "--ip-forward=false", "--ip-masq=false", "--bridge=none"],
        ...(options.tcp === undefined
          ? []
          : [
              ...["--host", `tcp://127.0.0.1:${options.tcp.port}`, "--tlsverify"],
              ...["--tlscacert", options.tcp.ca, "--tlscert", options.tcp.cert, "--tlskey", options.tcp.key]
            ])
      ]
    })
    const call = (method: string, apiPath: string) => engineCall(engine.socket, method, apiPath)
    // A crash of the whole engine (as a host reboot would): the daemon, its containerd, the shims and the
    // containers' processes. The next start finds the containers dead and marks them exited.
    // Its exec root is runtime state (a host's /run, gone after a reboot): cleared, so the next start is clean.
    const kill = Effect.gen(function* () {
      // The containers' own processes go too: they live in their own PID namespaces, so killing their shims would
      // orphan them (to PID 1) rather than end them. Their PIDs are asked for first, the daemon killed first.
      const listed = yield* call("GET", "/containers/json")
      const ids = listed.status === 200 ? (JSON.parse(listed.body) as Array<{ Id: string }>).map((c) => c.Id) : []
      const pids: Array<number> = []
      for (const id of ids) {
        const inspected = yield* call("GET", `/containers/${id}/json`)
        const pid =
          inspected.status === 200 ? (JSON.parse(inspected.body) as { State?: { Pid?: number } }).State?.Pid : 0
        if (pid !== undefined && pid > 0) pids.push(pid)
      }
      yield* engine.signal("SIGKILL")
      yield* Effect.sync(() => {
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL")
          } catch {
            // Already gone.
          }
        }
        killEverythingUnder(engine.base)
        const exec = path.join(engine.base, "exec")
        unmountUnder(exec)
        fs.rmSync(exec, { recursive: true, force: true })
      })
    })
    return { ...engine, kill }
  })

/** A real dockerd for one test scope, on its unix socket only (see {@link startDockerdWith}). */
export const startDockerd: Effect.Effect<Dockerd, Error, Scope.Scope> = Effect.suspend(() => startDockerdWith({}))
