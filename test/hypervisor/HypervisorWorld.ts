import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, type Scope } from "effect"
import { clusterYaml } from "../pve-sim/ClusterYaml.js"
import { type PveSim, type PveSimOptions, startPveSimulator } from "../pve-sim/PveSimulator.js"
import { type Sshd, startSshd } from "../support/Sshd.js"
import { tempDir } from "../support/TempDir.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** A running server wired to a simulator (and, when asked, to a real sshd standing in for node pve1). */
export interface HypervisorWorld {
  readonly dir: string
  readonly sim: PveSim
  readonly sshd: Sshd | undefined
  /** The node's journal files (`journalctl` shim): `<unit>.log`, `node.log` without a unit. */
  readonly journalDir: string
  readonly server: TestServer
  readonly url: (pathAndQuery: string) => string
  readonly wsUrl: (pathAndQuery: string) => string
}

export interface WorldOptions {
  readonly sim?: PveSimOptions
  /** Start a real OpenSSH sshd for node pve1 (the `pct` and `journalctl` shims first on its PATH). */
  readonly ssh?: boolean
  /** The LXC path the `pct` shim uses (real containers named by vmid). */
  readonly lxcPath?: string
  /** Node pve1 is this in-process fake instead (scripted output, connections it can drop). */
  readonly fakeNode?: { readonly port: number; readonly hostKeyLine: string; readonly clientKey: string }
  /** Route files to start with: file name → YAML. */
  readonly routeFiles?: Readonly<Record<string, string>>
  /** Overrides of the cluster's YAML (e.g. a wrong secret or host key). */
  readonly secret?: string
  readonly hostKey?: string
}

/** Starts the simulator, optionally sshd, and the real server composition configured for them; all scoped. */
export const hypervisorWorld = (options: WorldOptions = {}): Effect.Effect<HypervisorWorld, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = yield* tempDir("gatehouse-pve-")
    const sim = yield* Effect.acquireRelease(
      Effect.promise(() => startPveSimulator({ authFailureDelayMs: 20, taskDurationMs: 50, ...options.sim })),
      (s) => Effect.promise(() => s.close())
    )
    const journalDir = path.join(dir, "journal")
    fs.mkdirSync(journalDir)
    const sshd = options.ssh
      ? yield* startSshd(path.join(dir, "sshd"), {
          env: {
            GATEHOUSE_JOURNAL_DIR: journalDir,
            GATEHOUSE_NODE: "pve1",
            ...(options.lxcPath === undefined ? {} : { GATEHOUSE_LXC_PATH: options.lxcPath })
          }
        })
      : undefined
    const node =
      sshd !== undefined
        ? { port: sshd.port, hostKeyLine: sshd.hostKeyLine, clientKey: sshd.clientKeyPem }
        : options.fakeNode
    const keyFile = path.join(dir, "id_ed25519")
    if (node !== undefined) fs.writeFileSync(keyFile, node.clientKey, { mode: 0o600 })
    const configYaml = clusterYaml(sim, {
      ...(options.secret === undefined ? {} : { secret: options.secret }),
      ...(node === undefined
        ? {}
        : {
            ssh: {
              node: "pve1",
              port: node.port,
              hostKey: options.hostKey ?? node.hostKeyLine,
              privateKeyFile: keyFile
            }
          })
    })
    const server = yield* startTestServer({
      configYaml,
      ...(options.routeFiles ? { routeFiles: options.routeFiles } : {})
    })
    return {
      dir,
      sim,
      sshd,
      journalDir,
      server,
      url: (p) => `${server.baseUrl}${p}`,
      wsUrl: (p) => `${server.wsUrl}${p}`
    }
  })
