import type { GatehouseClient } from "@gatehouse-edge/client"
import * as Console from "effect/Console"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as HttpClientError from "effect/http/HttpClientError"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { cliCallTimeoutMs } from "./CallTimeouts.js"
import { apiKeyGiven, clientFlags, readApiKey } from "./ClientFlags.js"
import { dialAddress } from "./DialAddress.js"
import { fetchWithDeadline, NoAnswerWithin } from "./FetchWithDeadline.js"
import { untilCtrlC } from "./Following.js"
import { failWith, readServerConfig } from "./ServerConfig.js"

// The typed client (the HTTP API's contract: every endpoint's schemas) is loaded when a command calls the server:
// `serve`, `validate`, the gRPC commands, `--help` and `--version` start without it (bench/README.md, "CLI start-up").
const loadClient = () => Effect.promise(() => import("@gatehouse-edge/client"))

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
 * Runs `use` with the typed HTTP client of the server: its URL from `--server` or the config's `http.addr`, the API
 * key from `--api-key-file`, `GATEHOUSE_API_KEY` or `<data>/admin.key` (never from the command line, where other
 * users could read it). Each call's answer is waited for `answerWithinMs` at most (default {@link cliCallTimeoutMs};
 * `longCallTimeoutMs` for the calls the server itself takes longer to answer). Any failure is one line on
 * stderr and exit code 1: the server's own error message (its body's), a closed stream's code and reason, that the
 * server could not be reached, or that it did not answer in time.
 */
export const withClient = <A, E>(
  flags: HttpFlags,
  use: (client: GatehouseClient["Service"]) => Effect.Effect<A, E>,
  options: { readonly answerWithinMs?: number } = {}
) =>
  Effect.gen(function* () {
    // With the server's URL and a key given, the local config has nothing to add: it is not read at all (an admin
    // next to the server's config need not have the server's secrets, which its ${NAME} references would ask for).
    const needsConfig = Option.isNone(flags.server) || !apiKeyGiven(flags.apiKeyFile)
    const config = needsConfig
      ? (yield* readServerConfig({ config: flags.config, data: flags.data })).config
      : undefined
    const baseUrl = Option.getOrElse(flags.server, () => `http://${dialAddress(config!.http)}`)
    const apiKey = yield* readApiKey(flags.apiKeyFile, config?.dataDir ?? "")
    const { GatehouseClient, WebSocketClosed } = yield* loadClient()
    const client = GatehouseClient.layerWithoutHttpClient({ baseUrl, apiKey }).pipe(
      Layer.provide(fetchWithDeadline(options.answerWithinMs ?? cliCallTimeoutMs))
    )
    const called = Effect.flatMap(GatehouseClient, use).pipe(Effect.provide(client))
    return yield* Effect.catch(called, (error: unknown) => {
      if (HttpClientError.isHttpClientError(error)) return Effect.flatMap(describeHttpFailure(error, baseUrl), failWith)
      if (error instanceof WebSocketClosed) {
        return failWith([
          `gatehouse: the stream closed with ${error.code}${error.reason === "" ? "" : `: ${error.reason}`}`
        ])
      }
      if (Schema.isSchemaError(error)) return failWith([`gatehouse: ${oneLineSchemaError(error.message)}`])
      return failWith([`gatehouse: ${error instanceof Error ? error.message : String(error)}`])
    })
  })

/**
 * Why a connection failed, from the innermost cause that says (fetch wraps the socket's error: ECONNREFUSED,
 * ENOTFOUND, a certificate's code) rather than only "Transport error".
 */
export const transportCause = (cause: unknown): string | undefined => {
  let reason: string | undefined
  for (let current = cause, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { readonly code?: unknown }).code
    reason =
      typeof code === "string"
        ? `${code}${current.message.includes(code) ? "" : `: ${current.message}`}`
        : current.message
    current = (current as { readonly cause?: unknown }).cause
  }
  return reason
}

/**
 * What the CLI says of a failed HTTP call, on one line: the server could not be reached (and why), or it answered
 * with a status the contract does not declare for the call (a 500 from a defect, a 503 while it shuts down): then
 * its status, its message and the request id that finds the cause in the server's log.
 */
const describeHttpFailure = (error: HttpClientError.HttpClientError, baseUrl: string) => {
  const reason = error.reason
  if (reason instanceof HttpClientError.TransportError && reason.cause instanceof NoAnswerWithin) {
    const seconds = reason.cause.timeoutMs / 1000
    return Effect.succeed([`gatehouse: the HTTP API at ${baseUrl} did not answer within ${seconds} s`])
  }
  if (!("response" in reason)) {
    const why = reason._tag === "TransportError" ? transportCause(reason.cause) : undefined
    return Effect.succeed([`gatehouse: cannot reach the HTTP API at ${baseUrl}: ${why ?? error.message}`])
  }
  const status = reason.response.status
  return Effect.map(Effect.option(reason.response.json), (body) => {
    const answered = Option.getOrUndefined(body) as
      | { readonly error?: { readonly message?: unknown; readonly request_id?: unknown } }
      | undefined
    const message = answered?.error?.message
    const requestId = answered?.error?.request_id
    return [
      `gatehouse: the server answered ${status}` +
        (typeof message === "string" ? `: ${message}` : "") +
        (typeof requestId === "string" ? ` (request id ${requestId}: the server's log has the cause)` : "")
    ]
  })
}

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

/** Prints each line of a follow until it ends or Ctrl-C, which interrupts the stream and closes the socket. */
export const printLines = <E>(lines: Stream.Stream<string, E>) =>
  untilCtrlC(Stream.runForEach(lines, (line) => Console.log(line)))
