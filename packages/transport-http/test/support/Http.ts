import * as net from "node:net"
import { Effect } from "effect"
import { WebSocket } from "ws"

/** A response read whole: status, headers and the body as text and (when it is JSON) parsed. */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

/** `fetch` for tests: sends the API key unless `key: null`, reads the body, never throws on HTTP errors. */
export const request = (
  url: string,
  options: {
    readonly method?: string
    readonly key?: string | null
    readonly body?: string | Uint8Array
    readonly contentType?: string
    readonly headers?: Record<string, string>
  } = {}
): Effect.Effect<Reply> =>
  Effect.promise(async () => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.key) headers.authorization = `Bearer ${options.key}`
    if (options.contentType !== undefined) headers["content-type"] = options.contentType
    const response = await fetch(url, {
      method: options.method ?? "GET",
      headers,
      ...(options.body === undefined ? {} : { body: options.body })
    })
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  })

/** Sends a YAML body (`application/yaml` unless `contentType` says otherwise) with the API key. */
export const sendYaml = (
  url: string,
  key: string,
  body: string,
  options: { readonly method?: "POST" | "PUT"; readonly contentType?: string } = {}
) =>
  request(url, { method: options.method ?? "POST", key, body, contentType: options.contentType ?? "application/yaml" })

/** A WebSocket test client that records every frame and the close. */
export interface WsClient {
  readonly socket: WebSocket
  readonly frames: Array<string>
  /** Resolves with the next frame (or fails if the socket closes first). */
  readonly next: () => Effect.Effect<string>
  /** Waits until a frame satisfies `predicate`, returning it. */
  readonly until: (predicate: (frame: any) => boolean) => Effect.Effect<any>
  readonly closed: Promise<{ readonly code: number; readonly reason: string }>
  readonly send: (text: string) => void
}

/** Opens a WebSocket (scoped: closed at the end of the test) and fails with the HTTP status if it is refused. */
export const openWs = (
  url: string,
  options: { readonly key?: string | null; readonly headers?: Record<string, string> } = {}
) =>
  Effect.acquireRelease(
    Effect.callback<WsClient, { readonly status: number; readonly body: string }>((resume) => {
      const headers: Record<string, string> = { ...options.headers }
      if (options.key) headers.authorization = `Bearer ${options.key}`
      const socket = new WebSocket(url, { headers })
      const frames: Array<string> = []
      const waiters: Array<() => void> = []
      let cursor = 0
      const closed = new Promise<{ code: number; reason: string }>((done) =>
        socket.on("close", (code, reason) => {
          done({ code, reason: reason.toString() })
          for (const w of waiters.splice(0)) w()
        })
      )
      socket.on("message", (data) => {
        frames.push(data.toString())
        for (const w of waiters.splice(0)) w()
      })
      const arrival = () => new Promise<void>((r) => waiters.push(r))
      const next = (): Effect.Effect<string> =>
        Effect.promise(async () => {
          while (cursor >= frames.length) {
            if (socket.readyState === WebSocket.CLOSED) throw new Error("socket closed before the next frame")
            await arrival()
          }
          return frames[cursor++]!
        })
      const until = (predicate: (frame: any) => boolean) =>
        Effect.gen(function* () {
          for (;;) {
            const frame = JSON.parse(yield* next())
            if (predicate(frame)) return frame
          }
        })
      socket.on("unexpected-response", (_req, res) => {
        let body = ""
        res.on("data", (chunk) => (body += chunk))
        res.on("end", () => resume(Effect.fail({ status: res.statusCode ?? 0, body })))
      })
      socket.on("error", () => {})
      socket.on("open", () =>
        resume(Effect.succeed({ socket, frames, next, until, closed, send: (text: string) => socket.send(text) }))
      )
    }),
    (client) => Effect.sync(() => client.socket.terminate())
  )

/** Sends `raw` on a fresh connection and returns the status line of the answer. */
export const rawStatusLine = (url: URL, raw: string) =>
  Effect.promise(
    () =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(url.port), url.hostname, () => socket.write(raw))
        let received = ""
        socket.on("data", (chunk) => {
          received += chunk.toString("latin1")
          const end = received.indexOf("\r\n")
          if (end >= 0) {
            socket.destroy()
            resolve(received.slice(0, end))
          }
        })
        socket.on("error", reject)
      })
  )
