/**
 * The rules about where Gatehouse listens and whom it calls over plain text, shared by the config rules (which
 * report them at the key, with its position) and the transports (which check them again for embedders that
 * build their options in code, without a config file).
 */

/** Whether a host name or IP literal is this machine's loopback: `localhost`, 127.0.0.0/8, `::1` or `[::1]`. */
export const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

/** A gRPC TCP listener as far as its transport security goes. */
export interface GrpcListener {
  /** `host:port` as shown to the operator. */
  readonly address: string
  readonly host: string
  readonly tls: boolean
  readonly insecure: boolean
}

/**
 * Why a gRPC TCP listener must not start: plaintext off loopback without `insecure: true` would carry API keys in
 * clear text across the network. `undefined` when it may start.
 */
export const grpcPlaintextRefusal = (listener: GrpcListener): string | undefined =>
  listener.tls || listener.insecure || isLoopbackHost(listener.host)
    ? undefined
    : `refusing to serve gRPC without TLS on ${listener.address}: API keys would cross the network in clear text; ` +
      "configure grpc.tls (cert, key), listen on loopback, or set grpc.insecure: true"
