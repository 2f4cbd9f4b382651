import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as net from "node:net"
import { Effect, type Scope } from "effect"

/**
 * A reverse proxy in front of a server, as nginx is: it passes requests and WebSocket upgrades on; while its
 * upstream is down it answers everything itself, with its own HTML error page.
 */
export interface ReverseProxy {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** Cuts every open connection, then answers every request and upgrade with `status` and an HTML page. */
  readonly down: (status: number) => void
  /** Passes requests and upgrades on again. */
  readonly up: () => void
}

const errorPage = (status: number) =>
  `<html><head><title>${status} ${http.STATUS_CODES[status]}</title></head><body><center><h1>${status} ` +
  `${http.STATUS_CODES[status]}</h1></center><hr><center>nginx</center></body></html>\n`

/** Starts a loopback reverse proxy to `127.0.0.1:<port>`. Scoped. */
export const startReverseProxy = (port: number): Effect.Effect<ReverseProxy, never, Scope.Scope> =>
  Effect.gen(function* () {
    let downWith: number | undefined
    const sockets = new Set<net.Socket>()
    const track = (socket: net.Socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      return socket
    }
    const server = http.createServer((req, res) => {
      if (downWith !== undefined) {
        return res.writeHead(downWith, { "content-type": "text/html" }).end(errorPage(downWith))
      }
      const upstream = http.request(
        { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        }
      )
      upstream.on("error", () => res.destroy())
      req.pipe(upstream)
    })
    server.on("connection", track)
    server.on("upgrade", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      client.on("error", () => client.destroy())
      if (downWith !== undefined) {
        const page = errorPage(downWith)
        client.end(
          `HTTP/1.1 ${downWith} ${http.STATUS_CODES[downWith]}\r\ncontent-type: text/html\r\n` +
            `content-length: ${Buffer.byteLength(page)}\r\nconnection: close\r\n\r\n${page}`
        )
        return
      }
      const upstream = track(net.connect(port, "127.0.0.1"))
      let raw = `${req.method} ${req.url} HTTP/1.1\r\n`
      for (let i = 0; i < req.rawHeaders.length; i += 2) raw += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`
      upstream.write(`${raw}\r\n`)
      upstream.write(head)
      client.pipe(upstream).pipe(client)
      const drop = () => {
        client.destroy()
        upstream.destroy()
      }
      upstream.on("error", drop).on("close", drop)
      client.on("close", drop)
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    return {
      origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      down: (status) => {
        downWith = status
        for (const socket of sockets) socket.destroy()
      },
      up: () => {
        downWith = undefined
      }
    }
  })
