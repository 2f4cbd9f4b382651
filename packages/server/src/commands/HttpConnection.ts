import { GatehouseClient, WebSocketClosed } from "@gatehouse-edge/client"
import { formatListenAddress } from "@gatehouse-edge/core"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as HttpClientError from "effect/http/HttpClientError"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { clientFlags, readApiKey } from "./ClientFlags.js"
import { failWith, readServerConfig } from "./ServerConfig.js"

/** The flags of every command that calls the HTTP API. */
export const httpFlags = {
  ...clientFlags,
  server: Flag.String("server").pipe(
    Flag.withDescription("The server's URL (default: http:// and the config's http.addr, 127.0.0.1:8888)"),
    Flag.optional
  )
}

export interface HttpFlags {
  readonly config: Option.Option<string>
  readonly data: Option.Option<string>
  readonly server: Option.Option<string>
  readonly apiKeyFile: Option.Option<string>
}

/**
 * The typed HTTP client of the server: its URL from `--server` or the config's `http.addr`, the API key from
 * `--api-key-file`, `GATEHOUSE_API_KEY` or `<data>/admin.key` (never from the command line, where other users could
 * read it).
 */
export const connectHttp = Effect.fnUntraced(function* (flags: HttpFlags) {
  const { config } = yield* readServerConfig({ config: flags.config, data: flags.data })
  // A server listening on every interface is reached on loopback.
  const local = formatListenAddress(config.http)
    .replace(/^0\.0\.0\.0:/, "127.0.0.1:")
    .replace(/^\[::\]:/, "[::1]:")
  const baseUrl = Option.getOrElse(flags.server, () => `http://${local}`)
  const apiKey = yield* readApiKey(flags.apiKeyFile, config.dataDir)
  return { layer: GatehouseClient.layer({ baseUrl, apiKey }), baseUrl }
})

/**
 * A failed call as one line on stderr and exit code 1: the server's own error message (its body's), a closed
 * stream's code and reason, or that the server could not be reached.
 */
export const reportHttpErrors = <A, E, R>(baseUrl: string, effect: Effect.Effect<A, E, R>) =>
  Effect.catch(effect, (error: unknown) => {
    if (HttpClientError.isHttpClientError(error)) {
      return failWith([`gatehouse: cannot reach the HTTP API at ${baseUrl}: ${error.message}`])
    }
    if (error instanceof WebSocketClosed) {
      return failWith([
        `gatehouse: the stream closed with ${error.code}${error.reason === "" ? "" : `: ${error.reason}`}`
      ])
    }
    if (Schema.isSchemaError(error)) return failWith([`gatehouse: ${oneLineSchemaError(error.message)}`])
    return failWith([`gatehouse: ${error instanceof Error ? error.message : String(error)}`])
  })

/**
 * A schema error (an argument the typed client refuses to send, or an answer it cannot read) on one line: Effect
 * words each problem as its message and, on the next line, `  at [path]`; the CLI prints `path: message`.
 */
const oneLineSchemaError = (message: string) => {
  const problems: Array<string> = []
  for (const line of message.split("\n")) {
    const at = /^\s+at \[(.*)\]$/.exec(line)
    if (at !== null && problems.length > 0) problems.push(`${at[1]}: ${problems.pop()}`)
    else if (line.trim() !== "") problems.push(line.trim())
  }
  return `invalid ${problems.join("; ")}`
}
