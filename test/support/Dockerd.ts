import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, type Scope } from "effect"

/** A real Docker engine for one test scope: its socket, the busybox image it holds, and a way to stop it. */
export interface Dockerd {
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
  /** Stops the engine gracefully (SIGTERM: it stops its containers first); `start` brings it back. */
  readonly stop: Effect.Effect<void>
  /** Kills the engine (SIGKILL: a crash; its connections are cut mid-response); `start` brings it back. */
  readonly kill: Effect.Effect<void>
  readonly start: Effect.Effect<void, Error>
}

const applets = [
  "sh",
  "ls",
  "cat",
  "echo",
  "sleep",
  "httpd",
  "date",
  "hostname",
  "ps",
  "tail",
  "head",
  "wc",
  "true",
  "seq",
  "yes",
  "printf",
  "kill",
  "env"
]

/** Sends one request over the engine's socket and reads the whole answer. */
const call = (socket: string, method: string, apiPath: string, body?: unknown, raw?: Buffer) =>
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

/** Mount points at or under `dir`, deepest first (dockerd leaves its netns and overlay mounts behind). */
const mountsUnder = (dir: string): Array<string> =>
  fs
    .readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length)

/** SIGKILLs every process whose command line mentions `dir` (shims and containerd name their sockets under it). */
const killEverythingUnder = (dir: string) => {
  try {
    execFileSync("pkill", ["-KILL", "-f", dir])
  } catch {
    // Nothing left to kill.
  }
}

/**
 * Starts `dockerd` (Debian `docker.io`) as test-infra §1.2 does: its own data root, exec root and socket in a
 * short temp dir (containerd's socket paths must stay under 108 bytes), no bridge, no iptables, no NAT — tests run
 * containers with NetworkMode `none` or `host` only. Imports the busybox image, and on scope close removes every
 * container, stops the daemon by PID, unmounts what it left and deletes the dir.
 */
export const startDockerd: Effect.Effect<Dockerd, Error, Scope.Scope> = Effect.suspend(() => startDockerdWith({}))

/** Where {@link startDockerdWith} also listens: TCP on loopback, only with TLS and client certificates. */
export interface DockerdTcp {
  readonly port: number
  readonly ca: string
  readonly cert: string
  readonly key: string
}

/** {@link startDockerd}, also listening on `tcp` when given (`--tlsverify`: clients need a certificate of `ca`). */
export const startDockerdWith = (options: { readonly tcp?: DockerdTcp }): Effect.Effect<Dockerd, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "ghd-"))
    const socket = path.join(base, "engine.sock")
    const rootfs = path.join(base, "rootfs")
    yield* Effect.try({
      try: () => {
        for (const dir of ["bin", "etc", "tmp", "www", "proc", "sys", "dev"])
          fs.mkdirSync(path.join(rootfs, dir), { recursive: true })
        fs.copyFileSync("/bin/busybox", path.join(rootfs, "bin/busybox"))
        fs.chmodSync(path.join(rootfs, "bin/busybox"), 0o755)
        for (const applet of applets) fs.symlinkSync("busybox", path.join(rootfs, "bin", applet))
        fs.writeFileSync(path.join(rootfs, "etc/passwd"), "root:x:0:0:root:/:/bin/sh\n")
        fs.writeFileSync(path.join(rootfs, "etc/group"), "root:x:0:\n")
        execFileSync("tar", ["-C", rootfs, "-cf", path.join(base, "rootfs.tar"), "."])
      },
      catch: (cause) => new Error(`dockerd setup failed in ${base}: ${String(cause)}`)
    })
    let child: ChildProcess | undefined
    const log = { text: "" }
    const launch = Effect.gen(function* () {
      const process_ = spawn(
        "dockerd",
        [
          ...[
            "--host",
            `unix://${socket}`,
            "--data-root",
            path.join(base, "data"),
            "--exec-root",
            path.join(base, "exec")
          ],
          ...[
            "--pidfile",
            path.join(base, "dockerd.pid"),
            "--iptables=false",
            "--ip6tables=false",
            "--ip-forward=false"
          ],
          ...["--ip-masq=false", "--bridge=none"],
          ...(options.tcp === undefined
            ? []
            : [
                ...["--host", `tcp://127.0.0.1:${options.tcp.port}`, "--tlsverify"],
                ...["--tlscacert", options.tcp.ca, "--tlscert", options.tcp.cert, "--tlskey", options.tcp.key]
              ])
        ],
        { stdio: ["ignore", "pipe", "pipe"] }
      )
      process_.stdout?.on("data", (c: Buffer) => (log.text += c.toString("utf8")))
      process_.stderr?.on("data", (c: Buffer) => (log.text += c.toString("utf8")))
      child = process_
      const deadline = Date.now() + 30_000
      for (;;) {
        if (process_.exitCode !== null)
          return yield* Effect.fail(new Error(`dockerd exited at start:\n${log.text.slice(-2000)}`))
        if ((yield* call(socket, "GET", "/_ping")).status === 200) return
        if (Date.now() > deadline)
          return yield* Effect.fail(new Error(`dockerd not ready within 30 s:\n${log.text.slice(-2000)}`))
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
          const listed = yield* call(socket, "GET", "/containers/json?all=1")
          const ids = listed.status === 200 ? (JSON.parse(listed.body) as Array<{ Id: string }>).map((c) => c.Id) : []
          for (const id of ids) yield* call(socket, "DELETE", `/containers/${id}?force=1`)
        }
        yield* stop
        yield* Effect.sync(() => {
          // Shims of containers a crashed daemon left behind (test-infra §1.4: kill leftovers by their path).
          killEverythingUnder(base)
          for (const point of mountsUnder(base)) {
            try {
              execFileSync("umount", ["-l", point])
            } catch {
              // Already gone with its parent.
            }
          }
          fs.rmSync(base, { recursive: true, force: true })
        })
      })
    )
    yield* launch
    const tar = fs.readFileSync(path.join(base, "rootfs.tar"))
    const imported = yield* call(
      socket,
      "POST",
      "/images/create?fromSrc=-&repo=localhost/bbx&tag=latest",
      undefined,
      tar
    )
    if (imported.status !== 200)
      return yield* Effect.fail(new Error(`image import failed: ${imported.status} ${imported.body}`))
    const image = "localhost/bbx:latest"
    const run = (name: string, spec: Record<string, unknown>, start = true) =>
      Effect.gen(function* () {
        const hostConfig = { NetworkMode: "none", ...(spec.HostConfig as Record<string, unknown> | undefined) }
        const created = yield* call(socket, "POST", `/containers/create?name=${name}`, {
          Image: image,
          ...spec,
          HostConfig: hostConfig
        })
        if (created.status !== 201)
          return yield* Effect.fail(new Error(`create ${name}: ${created.status} ${created.body}`))
        const id = (JSON.parse(created.body) as { Id: string }).Id
        if (start) {
          const started = yield* call(socket, "POST", `/containers/${id}/start`)
          if (started.status !== 204)
            return yield* Effect.fail(new Error(`start ${name}: ${started.status} ${started.body}`))
        }
        return id
      })
    return {
      socket,
      image,
      run,
      api: (method, apiPath, body) => call(socket, method, apiPath, body),
      stop,
      // A crash of the whole engine (as a host reboot would): the daemon, its containerd, the shims and the
      // containers' processes. The next start finds the containers dead and marks them exited.
      // Its exec root is runtime state (a host's /run, gone after a reboot): cleared, so the next start is clean.
      kill: Effect.gen(function* () {
        // The containers' own processes go too: they live in their own PID namespaces, so killing their shims would
        // orphan them (to PID 1) rather than end them. Their PIDs are asked for first, the daemon killed first.
        const listed = yield* call(socket, "GET", "/containers/json")
        const ids = listed.status === 200 ? (JSON.parse(listed.body) as Array<{ Id: string }>).map((c) => c.Id) : []
        const pids: Array<number> = []
        for (const id of ids) {
          const inspected = yield* call(socket, "GET", `/containers/${id}/json`)
          const pid =
            inspected.status === 200 ? (JSON.parse(inspected.body) as { State?: { Pid?: number } }).State?.Pid : 0
          if (pid !== undefined && pid > 0) pids.push(pid)
        }
        yield* signal("SIGKILL")
        yield* Effect.sync(() => {
          for (const pid of pids) {
            try {
              process.kill(pid, "SIGKILL")
            } catch {
              // Already gone.
            }
          }
        })
      }).pipe(
        Effect.andThen(
          Effect.sync(() => {
            killEverythingUnder(base)
            const exec = path.join(base, "exec")
            for (const point of mountsUnder(exec)) {
              try {
                execFileSync("umount", ["-l", point])
              } catch {
                // Already gone with its parent.
              }
            }
            fs.rmSync(exec, { recursive: true, force: true })
          })
        )
      ),
      start: launch
    }
  })
