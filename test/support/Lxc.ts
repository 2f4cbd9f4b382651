import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, type Scope } from "effect"

/** What a command printed and how it ended. */
export interface CommandOutput {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs a host command to its end (never fails: the exit code is in the result). */
export const runCommand = (file: string, args: ReadonlyArray<string>, timeoutMs = 60_000) =>
  Effect.callback<CommandOutput>((resume) => {
    const child = execFile(file, [...args], { timeout: timeoutMs, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
      resume(Effect.succeed({ code, stdout, stderr }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const check = (what: string, output: CommandOutput) =>
  output.code === 0
    ? Effect.succeed(output)
    : Effect.fail(new Error(`${what} exited ${output.code}: ${output.stderr}${output.stdout}`))

/**
 * Privileged busybox LXC containers named by vmid, all under one `-P` path (test-infra §3): no network
 * (`lxc.net.0.type = empty`, so no bridge or private subnet) and no AppArmor profile. The `pct` shim
 * (test/support/fakebin/pct) finds them through `GATEHOUSE_LXC_PATH` = {@link LxcHost.path}.
 */
export interface LxcHost {
  /** The containers' directory (`lxc-* -P`). */
  readonly path: string
  /** `lxc-create -t busybox` (stopped). */
  readonly create: (vmid: number) => Effect.Effect<void, Error>
  readonly start: (vmid: number) => Effect.Effect<void, Error>
  /** Stops at once (`lxc-stop -k`); a clean stop takes ~2 s and gains nothing in tests. */
  readonly stop: (vmid: number) => Effect.Effect<void, Error>
  readonly destroy: (vmid: number) => Effect.Effect<void, Error>
  /** `lxc-attach` into a running container, e.g. to write the log file a test then tails over SSH. */
  readonly attach: (vmid: number, argv: ReadonlyArray<string>) => Effect.Effect<CommandOutput>
  /** `RUNNING`, `STOPPED`, ... */
  readonly state: (vmid: number) => Effect.Effect<string, Error>
}

/**
 * An LXC host under `baseDir/lxc` for the current scope; closing the scope kills and destroys every container
 * still there.
 */
export const lxcHost = (baseDir: string): Effect.Effect<LxcHost, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const lxcPath = path.resolve(baseDir, "lxc")
    const config = path.resolve(baseDir, "lxc-empty.conf")
    yield* Effect.try({
      try: () => {
        fs.mkdirSync(lxcPath, { recursive: true })
        fs.writeFileSync(config, "lxc.net.0.type = empty\nlxc.apparmor.profile = unconfined\n")
      },
      catch: (cause) => new Error(`LXC setup failed in ${baseDir}: ${String(cause)}`)
    })
    const lxc = (command: string, vmid: number, ...args: ReadonlyArray<string>) =>
      runCommand(command, ["-P", lxcPath, "-n", String(vmid), ...args]).pipe(
        Effect.flatMap((output) => check(`${command} ${vmid}`, output))
      )
    const host: LxcHost = {
      path: lxcPath,
      create: (vmid) => lxc("lxc-create", vmid, "-t", "busybox", "-f", config).pipe(Effect.asVoid),
      start: (vmid) => lxc("lxc-start", vmid).pipe(Effect.asVoid),
      stop: (vmid) => lxc("lxc-stop", vmid, "-k").pipe(Effect.asVoid),
      destroy: (vmid) => lxc("lxc-destroy", vmid, "-f").pipe(Effect.asVoid),
      attach: (vmid, argv) => runCommand("lxc-attach", ["-P", lxcPath, "-n", String(vmid), "--", ...argv]),
      state: (vmid) => lxc("lxc-info", vmid, "-s", "-H").pipe(Effect.map((output) => output.stdout.trim()))
    }
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        const names = fs.existsSync(lxcPath) ? fs.readdirSync(lxcPath) : []
        for (const name of names) {
          if (!/^\d+$/.test(name)) continue
          yield* runCommand("lxc-destroy", ["-P", lxcPath, "-n", name, "-f"])
        }
      })
    )
    return host
  })
