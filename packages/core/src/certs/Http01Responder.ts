import * as http from "node:http"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** The HTTP-01 listener could not be started (the address is taken, or binding needs privileges). */
export class Http01ListenFailed extends Data.TaggedError("Http01ListenFailed")<{
  readonly address: string
  readonly reason: string
}> {
  override get message() {
    return `cannot answer HTTP-01 challenges on ${this.address}: ${this.reason}`
  }
}

/** Answers `GET /.well-known/acme-challenge/<token>` with the key authorization of each token set. */
export interface Http01Responder {
  readonly set: (token: string, keyAuthorization: string) => Effect.Effect<void>
  readonly remove: (token: string) => Effect.Effect<void>
}

const prefix = "/.well-known/acme-challenge/"

/**
 * Listens on `host:port` for the scope (one order): the port is held only while a CA may validate, and a bind
 * failure is a failed renewal the operator sees, not a server that does not start.
 */
export const http01Responder = (address: { readonly host: string; readonly port: number }) =>
  Effect.gen(function* () {
    const tokens = new Map<string, string>()
    const server = http.createServer((request, response) => {
      const url = request.url ?? ""
      const answer = url.startsWith(prefix) ? tokens.get(url.slice(prefix.length)) : undefined
      if ((request.method === "GET" || request.method === "HEAD") && answer !== undefined) {
        response.writeHead(200, { "content-type": "text/plain" }).end(answer)
      } else response.writeHead(404, { "content-type": "text/plain" }).end("not found\n")
    })
    const label = `${address.host}:${address.port}`
    yield* Effect.acquireRelease(
      Effect.callback<void, Http01ListenFailed>((resume) => {
        const onError = (error: NodeJS.ErrnoException) =>
          resume(Effect.fail(new Http01ListenFailed({ address: label, reason: error.code ?? error.message })))
        server.once("error", onError)
        server.listen(address.port, address.host, () => {
          server.off("error", onError)
          resume(Effect.void)
        })
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return {
      set: (token, keyAuthorization) => Effect.sync(() => void tokens.set(token, keyAuthorization)),
      remove: (token) => Effect.sync(() => void tokens.delete(token))
    } satisfies Http01Responder
  })
