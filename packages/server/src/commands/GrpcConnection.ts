import * as path from "node:path"
import { parseListenAddress } from "@gatehouse-edge/core/config"
import type { AuthServiceCallError, AuthServiceEffectClient } from "@gatehouse-edge/transport-grpc/client"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { cliCallTimeoutMs } from "./CallTimeouts.js"
import { apiKeyGiven, clientFlags, readApiKey, readFileFor } from "./ClientFlags.js"
import { dialAddress } from "./DialAddress.js"
import { dropIpServernameWarning } from "./IpServernameWarning.js"
import { failWith, readServerConfig } from "./ServerConfig.js"

// The gRPC client (grpc-js, the protos, protobufjs) is loaded when a command connects: the other commands start
// without it (bench/README.md, "CLI start-up").
const loadGrpcClient = () => Effect.promise(() => import("@gatehouse-edge/transport-grpc/client"))

// Failures that say nothing listens there or the name is unknown: TLS or not, the call could not have got through.
const nothingThere = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ENOENT|Name resolution failed/

/**
 * A failed call as the one line a command prints: where it was sent when it never got there or got no answer.
 * `plaintext`: the call was made without TLS to a TCP address; a server that serves only TLS (`grpc.tls`) drops
 * such a connection, which grpc-js reports as a failure to connect, so the line says how to call it with TLS.
 */
export const callErrorLine = (
  error: Pick<AuthServiceCallError, "statusName" | "message" | "requestId">,
  address: string,
  plaintext = false
): string => {
  if (error.statusName === "UNAVAILABLE") {
    const reached = `gatehouse: cannot reach the gRPC API at ${address}: ${error.message}`
    if (plaintext && !nothingThere.test(error.message)) {
      return `${reached}\ngatehouse: this call was made without TLS; if the server serves TLS (grpc.tls), add --tls (or --ca <file> for a private CA)`
    }
    // The address is the name TLS checks the certificate against: the one to call is a name the certificate holds.
    if (!error.message.includes("does not match certificate's altnames")) return reached
    const port = /:(\d+)$/.exec(address)?.[1] ?? "PORT"
    return `${reached}\ngatehouse: call it by a name in its certificate: --grpc <name in the certificate>:${port}`
  }
  // No request id: the deadline passed here, not on the server.
  if (error.statusName === "DEADLINE_EXCEEDED" && error.requestId === undefined) {
    return `gatehouse: the gRPC API at ${address} did not answer: ${error.message}`
  }
  return `gatehouse: ${error.message} (${error.statusName})`
}

/** The address `--grpc` names, as the config would take it, or a failed command saying what it expects. */
const grpcFlagAddress = (text: string) => {
  const address = parseListenAddress(text)
  return address === undefined
    ? failWith([
        `gatehouse: --grpc: expected host:port, e.g. 127.0.0.1:50443 or [::1]:50443, got ${JSON.stringify(text)}`
      ])
    : Effect.succeed(address)
}

/** The flags of every command that calls the gRPC API. */
export const grpcFlags = {
  ...clientFlags,
  grpc: Flag.String("grpc").pipe(
    Flag.withDescription("gRPC address host:port (default: GATEHOUSE_GRPC_ADDR, then the config's, 127.0.0.1:50443)"),
    Flag.optional
  ),
  unixSocket: Flag.String("unix-socket").pipe(
    Flag.withDescription("Call over the server's unix socket instead (no API key needed)"),
    Flag.optional
  ),
  ca: Flag.String("ca").pipe(Flag.withDescription("Use TLS, trusting this CA certificate (PEM)"), Flag.optional),
  tls: Flag.Boolean("tls").pipe(
    Flag.withDescription(
      "Use TLS, trusting the system's CAs (default: when the server's config sets grpc.tls; --ca implies it)"
    ),
    Flag.withDefault(false)
  )
}

export interface GrpcFlags {
  readonly config: Option.Option<string>
  readonly data: Option.Option<string>
  readonly grpc: Option.Option<string>
  readonly unixSocket: Option.Option<string>
  readonly apiKeyFile: Option.Option<string>
  readonly ca: Option.Option<string>
  readonly tls: boolean
}

/**
 * A client of the server's AuthService: the address from `--grpc`, `GATEHOUSE_GRPC_ADDR` or the config (a server
 * listening on every interface is called on loopback), over TLS with `--tls`, `--ca` or a config that sets
 * `grpc.tls`, the API key from `--api-key-file`, `GATEHOUSE_API_KEY` or `<data>/admin.key` (never from the command
 * line, where other users could read it), or the unix socket without a key. Closed with the scope. Each unary call
 * is given {@link cliCallTimeoutMs}. With it, `reportCallErrors`: a refused or failed call as one line on stderr
 * (and how to call it instead, when the address is not a name in the server's certificate) and exit code 1 (no
 * stack trace).
 */
export const connect = Effect.fnUntraced(function* (flags: GrpcFlags) {
  // With where to call and how to authenticate given (the unix socket needs no key), the local config has nothing
  // to add: it is not read at all, as for the HTTP commands (an admin next to the server's config need not have the
  // server's secrets, which its ${NAME} references would ask for). TLS is then only what --tls and --ca say.
  const needsConfig = Option.isNone(flags.unixSocket) && (Option.isNone(flags.grpc) || !apiKeyGiven(flags.apiKeyFile))
  const config = needsConfig
    ? (yield* readServerConfig({ config: flags.config, data: flags.data, grpc: flags.grpc })).config
    : undefined
  const rootCerts = Option.isSome(flags.ca) ? yield* readFileFor(flags.ca.value, "the CA certificate") : undefined
  let target: { address: string; apiKey?: string }
  if (Option.isSome(flags.unixSocket)) {
    target = { address: `unix:${path.resolve(flags.unixSocket.value)}` }
  } else {
    const listening = config?.grpc ?? (yield* grpcFlagAddress(Option.getOrElse(flags.grpc, () => "")))
    const apiKey = yield* readApiKey(flags.apiKeyFile, config?.dataDir ?? "")
    target = { address: dialAddress(listening), apiKey }
  }
  const grpc = yield* loadGrpcClient()
  // TLS when asked for, or when the config the address came from serves only TLS (a plaintext call to it gets no
  // answer); the unix socket is never TLS.
  const tls =
    Option.isNone(flags.unixSocket) && (flags.tls || rootCerts !== undefined || config?.grpc.tls !== undefined)
  if (tls) yield* dropIpServernameWarning
  const client = grpc.makeAuthServiceClient({
    ...target,
    insecure: !tls,
    ...(rootCerts === undefined ? {} : { rootCerts })
  })
  yield* Effect.addFinalizer(() => Effect.sync(() => client.close()))
  const reportCallErrors = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.catchIf(
        (error): error is E & InstanceType<typeof grpc.AuthServiceCallError> =>
          error instanceof grpc.AuthServiceCallError,
        (error) => failWith([callErrorLine(error, target.address, !tls && Option.isNone(flags.unixSocket))])
      )
    )
  // Watches keep the client's silence limit (three of the server's heartbeats); each unary call gets a deadline.
  const effectClient: AuthServiceEffectClient = grpc.authServiceEffectClient(client, {
    callTimeoutMs: cliCallTimeoutMs
  })
  return { client: effectClient, reportCallErrors }
})
