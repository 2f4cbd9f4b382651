import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, type Scope } from "effect"

/** A real container engine (dockerd, or Podman's Docker API) for one test scope. */
export interface ContainerEngine {
  /** The engine's unix socket. */
  readonly socket: string
  /** `localhost/bbx:latest`: busybox-static with its applets, imported from a local rootfs (no registry). */
  readonly image: string
  /**
   * Creates a container of the busybox image named `name` (NetworkMode `none` unless `spec` says otherwise) and
   * starts it unless `start` is false; gives its id.
   */
  readonly run: (name: string, spec: Record<string, unknown>, start?: boolean) => Effect.Effect<string, Error>
  /** Calls the engine's API directly (for test setup): method, path, JSON body. */
  readonly api: (method: string, apiPath: string, body?: unknown) => Effect.Effect<{ status: number; body: string }>
  /** Stops the engine gracefully (SIGTERM); `start` brings it back. */
  readonly stop: Effect.Effect<void>
  readonly start: Effect.Effect<void, Error>
}

/** What {@link startEngineDaemon} gives the engine-specific harness on top of the engine. */
export interface EngineDaemon extends ContainerEngine {
  /** The engine's temp dir: data, runtime state and socket live under it. */
  readonly base: string
  /** Sends a signal to the daemon and waits for it to exit (nothing when it is not running). */
  readonly signal: (name: NodeJS.Signals) => Effect.Effect<void>
}

/** How to run one kind of engine daemon. */
export interface EngineSpec {
  /** For messages: `dockerd`, `podman`. */
  readonly label: string
  /** Prefix of the temp dir (short: containerd's socket paths must stay under 108 bytes). */
  readonly tempPrefix: string
  readonly command: string
  readonly args: (base: string, socket: string) => ReadonlyArray<string>
  /** Files the engine needs before it starts (config written under `base`). */
  readonly prepare?: (base: string) => void
  /** Variables added to the daemon's environment. */
  readonly env?: (base: string) => Readonly<Record<string, string>>
}

const applets = [
  ...["sh", "ls", "cat", "echo", "sleep", "httpd", "date", "hostname", "ps", "tail", "head", "wc", "true", "seq"],
  ...["yes", "printf", "kill", "env"]
]

/** Sends one request over the engine's socket and reads the whole answer. */
export const engineCall = (socket: string, method: string, apiPath: string, body?: unknown, raw?: Buffer) =>
  Effect.promise(
    () =>
      new Promise<{ status: number; body: string }>((resolve) => {
        const payload = raw ?? (body === undefined ? undefined : Buffer.from(JSON.stringify(body)))
        const req = http.request(
          {
            socketPath: socket,
            path: apiPath,
            method,
            headers:
              payload === undefined
                ? {}
                : { "content-type": raw ? "application/x-tar" : "application/json", "content-length": payload.length }
          },
          (res) => {
            const chunks: Array<Buffer> = []
            res.on("data", (c: Buffer) => chunks.push(c))
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }))
          }
        )
        req.on("error", (error) => resolve({ status: 0, body: error.message }))
        req.end(payload)
      })
  )

const exited = (child: ChildProcess) =>
  Effect.promise(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
      })
  )

/** Unmounts every mount point at or under `dir`, deepest first (engines leave netns and overlay mounts behind). */
export const unmountUnder = (dir: string) => {
  const points = fs
    .readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length)
  for (const point of points) {
    try {
      execFileSync("umount", ["-l", point])
    } catch {
      // Already gone with its parent.
    }
  }
}

/** SIGKILLs every process whose command line mentions `dir` (shims, containerd and conmon name paths under it). */
export const killEverythingUnder = (dir: string) => {
  try {
    execFileSync("pkill", ["-KILL", "-f", dir])
  } catch {
    // Nothing left to kill.
  }
}

/** busybox-static and its applets as a rootfs tar in `base` (the image every test container runs). */
const writeRootfsTar = (base: string) => {
  const rootfs = path.join(base, "rootfs")
  for (const dir of ["bin", "etc", "tmp", "www", "proc", "sys", "dev"])
    fs.mkdirSync(path.join(rootfs, dir), { recursive: true })
  fs.copyFileSync("/bin/busybox", path.join(rootfs, "bin/busybox"))
  fs.chmodSync(path.join(rootfs, "bin/busybox"), 0o755)
  for (const applet of applets) fs.symlinkSync("busybox", path.join(rootfs, "bin", applet))
  fs.writeFileSync(path.join(rootfs, "etc/passwd"), "root:x:0:0:root:/:/bin/sh\n")
  fs.writeFileSync(path.join(rootfs, "etc/group"), "root:x:0:\n")
  const tar = path.join(base, "rootfs.tar")
  execFileSync("tar", ["-C", rootfs, "-cf", tar, "."])
  return tar
}

/**
 * Starts an engine daemon in its own temp dir, waits for its API, imports the busybox image through the API, and
 * on scope close removes every container, stops the daemon by PID, kills what it left, unmounts and deletes the
 * dir. Tests run containers with NetworkMode `none` or `host` only.
 */
export const startEngineDaemon = (spec: EngineSpec): Effect.Effect<EngineDaemon, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), spec.tempPrefix))
    const socket = path.join(base, "engine.sock")
    const call = (method: string, apiPath: string, body?: unknown, raw?: Buffer) =>
      engineCall(socket, method, apiPath, body, raw)
    const tar = yield* Effect.try({
      try: () => {
        spec.prepare?.(base)
        return writeRootfsTar(base)
      },
      catch: (cause) => new Error(`${spec.label} setup failed in ${base}: ${String(cause)}`)
    })
    let child: ChildProcess | undefined
    const log = { text: "" }
    const launch = Effect.gen(function* () {
      const process_ = spawn(spec.command, [...spec.args(base, socket)], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...spec.env?.(base) }
      })
      process_.stdout?.on("data", (c: Buffer) => (log.text += c.toString("utf8")))
      process_.stderr?.on("data", (c: Buffer) => (log.text += c.toString("utf8")))
      child = process_
      const deadline = Date.now() + 30_000
      for (;;) {
        if (process_.exitCode !== null)
          return yield* Effect.fail(new Error(`${spec.label} exited at start:\n${log.text.slice(-2000)}`))
        if ((yield* call("GET", "/_ping")).status === 200) return
        if (Date.now() > deadline)
          return yield* Effect.fail(new Error(`${spec.label} not ready within 30 s:\n${log.text.slice(-2000)}`))
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      }
    })
    const signal = (name: NodeJS.Signals) =>
      Effect.suspend(() => {
        const running = child
        if (running === undefined || running.exitCode !== null || running.signalCode !== null) return Effect.void
        running.kill(name)
        return exited(running)
      })
    const stop = signal("SIGTERM")
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        if (child !== undefined && child.exitCode === null) {
          const listed = yield* call("GET", "/containers/json?all=1")
          const ids = listed.status === 200 ? (JSON.parse(listed.body) as Array<{ Id: string }>).map((c) => c.Id) : []
          for (const id of ids) yield* call("DELETE", `/containers/${id}?force=1`)
        }
        yield* stop
        yield* Effect.sync(() => {
          // What a crashed daemon left behind (test-infra §1.4: kill leftovers by their path).
          killEverythingUnder(base)
          unmountUnder(base)
          fs.rmSync(base, { recursive: true, force: true })
        })
      })
    )
    yield* launch
    const imported = yield* call(
      "POST",
      "/images/create?fromSrc=-&repo=localhost/bbx&tag=latest",
      undefined,
      fs.readFileSync(tar)
    )
    if (imported.status !== 200)
      return yield* Effect.fail(new Error(`image import failed: ${imported.status} ${imported.body}`))
    const image = "localhost/bbx:latest"
    const run = (name: string, containerSpec: Record<string, unknown>, start = true) =>
      Effect.gen(function* () {
        const hostConfig = { NetworkMode: "none", ...(containerSpec.HostConfig as Record<string, unknown> | undefined) }
        const created = yield* call("POST", `/containers/create?name=${name}`, {
          Image: image,
          ...containerSpec,
          HostConfig: hostConfig
        })
        if (created.status !== 201)
          return yield* Effect.fail(new Error(`create ${name}: ${created.status} ${created.body}`))
        const id = (JSON.parse(created.body) as { Id: string }).Id
        if (start) {
          const started = yield* call("POST", `/containers/${id}/start`)
          if (started.status !== 204)
            return yield* Effect.fail(new Error(`start ${name}: ${started.status} ${started.body}`))
        }
        return id
      })
    return {
      base,
      socket,
      image,
      run,
      api: (method, apiPath, body) => call(method, apiPath, body),
      stop,
      start: launch,
      signal
    }
  })
