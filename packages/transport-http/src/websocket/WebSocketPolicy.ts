import * as Context from "effect/Context"

/** Limits that keep one WebSocket client from costing the server or the other clients anything. */
export interface WebSocketPolicyShape {
  /** Bytes queued for a client above which the server waits for it to drain. */
  readonly drainAboveBytes: number
  /** Bytes queued for a client above which, or after waiting `drainTimeoutMs` for it, the client is dropped (1008). */
  readonly maxBufferedBytes: number
  readonly drainTimeoutMs: number
  /**
   * Bytes queued for one client (an IPv4 address, an IPv6 /64: as for `maxConnectionsPerClient`) on all its streams
   * together. Each stream alone stays under `maxBufferedBytes`, but a client may hold 1,000 streams: one that opens
   * them all and never reads would otherwise make the server hold 1 GiB. A stream whose next bytes would take its
   * client past this waits for the client's streams to drain, and is dropped (1008) after `drainTimeoutMs`.
   * 16 MiB: sixteen streams at their own limit, two 8 MB uptime pages at once; a client that reads drains it long
   * before `drainTimeoutMs`.
   */
  readonly maxBufferedBytesPerClient: number
  /**
   * Bytes queued for all clients together, so many clients (each within its own budget) cannot exhaust memory
   * either; beyond it any stream waits as above. 256 MiB: sixteen clients at their full budget.
   */
  readonly maxBufferedBytesPerServer: number
  /** The server pings this often; a client that has not answered the previous ping is dropped. */
  readonly pingIntervalMs: number
  /**
   * After closing a stream whose client did not keep up, how long the client gets to read what was queued ahead
   * of the close frame and answer it, before the connection is cut.
   */
  readonly closeGraceMs: number
  /** Open streams one client address may hold at once (429 beyond). */
  readonly maxConnectionsPerClient: number
  /** Open streams of the whole server (429 beyond). */
  readonly maxConnections: number
  /**
   * Host names the server answers WebSocket upgrades for (`Host`, and the host of `Origin`): a page from another
   * name that resolves to this server (DNS rebinding) is refused.
   */
  readonly allowedHosts: ReadonlyArray<string>
  /**
   * The origin browsers reach the server by when it is not `http://<Host>` (`http.public_url`, e.g.
   * `https://gate.example.com` behind a TLS-terminating proxy): upgrades and sign-ins may come from it.
   */
  readonly publicOrigin: string | undefined
  /** Whether session cookies are `Secure` (the public origin is https). */
  readonly secureCookies: boolean
}

/** WebSocket limits, with defaults suited to a LAN management API. */
export class WebSocketPolicy extends Context.Reference<WebSocketPolicyShape>(
  "@gatehouse-edge/transport-http/WebSocketPolicy",
  {
    defaultValue: () => ({
      drainAboveBytes: 256 * 1024,
      maxBufferedBytes: 1024 * 1024,
      drainTimeoutMs: 10_000,
      maxBufferedBytesPerClient: 16 * 1024 * 1024,
      maxBufferedBytesPerServer: 256 * 1024 * 1024,
      pingIntervalMs: 30_000,
      closeGraceMs: 10_000,
      maxConnectionsPerClient: 1000,
      maxConnections: 4000,
      allowedHosts: ["localhost", "127.0.0.1", "::1"],
      publicOrigin: undefined,
      secureCookies: false
    })
  }
) {}
