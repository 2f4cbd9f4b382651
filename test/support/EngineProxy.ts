import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, type Scope } from "effect"

/** A pass-through in front of an engine's socket that sees every request the server makes to the engine. */
export interface EngineProxy {
  /** Where the server under test connects instead of the engine. */
  readonly socket: string
  /** Every request so far, as `METHOD /path?query`, in order. */
  readonly requests: () => ReadonlyArray<string>
  /** The requests whose response is still open (streams: stats, log follows, events), as `METHOD /path?query`. */
  readonly open: () => ReadonlyArray<string>
}

/**
 * Starts an HTTP proxy on a unix socket that forwards every request to `engineSocket` and streams the answer back
 * as it comes (stats and log follows are long chunked responses), closing each side when the other closes. It
 * counts what the server asks the engine for — the engine-side proof that watchers share streams.
 */
export const startEngineProxy = (engineSocket: string): Effect.Effect<EngineProxy, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ghx-"))
    const socket = path.join(dir, "proxy.sock")
    const requests: Array<string> = []
    const open = new Map<http.ServerResponse, string>()
    const server = http.createServer((req, res) => {
      const line = `${req.method} ${req.url}`
      requests.push(line)
      open.set(res, line)
      res.on("close", () => open.delete(res))
      const upstream = http.request(
        { socketPath: engineSocket, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        }
      )
      upstream.on("error", () => res.destroy())
      // The server hung up (its last watcher left): the engine's stream ends too.
      res.on("close", () => upstream.destroy())
      req.pipe(upstream)
    })
    yield* Effect.acquireRelease(
      Effect.callback<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(socket, () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => {
            fs.rmSync(dir, { recursive: true, force: true })
            resume(Effect.void)
          })
        })
    )
    return { socket, requests: () => [...requests], open: () => [...open.values()] }
  })
