import { clientKeyOf } from "./ClientKey.js"

/** The part of a Node `net.Socket` the caps need (this module stays free of Node imports). */
export interface CappedSocket {
  readonly remoteAddress?: string | undefined
  destroy(): void
  once(event: "close", listener: () => void): unknown
}

/** How many TCP connections a listener holds at once. */
export interface ConnectionCapOptions {
  /** Connections of one client (an IPv4 address, an IPv6 /64: {@link clientKeyOf} of the socket's peer). */
  readonly perClient: number
  /** Connections of every client together. */
  readonly total: number
  /** The config keys of the two caps, named in the refusal notice (`http.limits`). */
  readonly configKey: string
  /** Peers that count only towards `total` (a trusted reverse proxy carries every client's connections). */
  readonly exempt?: ((address: string) => boolean) | undefined
  /** Told about refusals: at once for the first, then at most once per `quietMs` for the rest together. */
  readonly onRefused: (notice: string) => void
  /** Default 60 s. */
  readonly quietMs?: number | undefined
}

/** Counts a listener's connections and refuses those past a cap. */
export interface ConnectionCaps {
  /**
   * Takes a place for a connection just accepted, given back when it closes; `false` when a cap is reached: the
   * socket is then destroyed before anything of it is read.
   */
  readonly admit: (socket: CappedSocket) => boolean
  /** Connections held now. */
  readonly open: () => number
}

const NAMED_CLIENTS = 5

/**
 * Caps a listener's connections per client and in total. Every connection costs a file descriptor and a few KiB
 * whatever it sends, so a client that opens thousands and trickles bytes into each would otherwise exhaust the
 * process's descriptors (then every file, watcher and store operation fails too). The client is the socket's
 * peer, never a forwarded header: nothing of the connection has been read when it is counted.
 */
export const makeConnectionCaps = (options: ConnectionCapOptions): ConnectionCaps => {
  const counts = new Map<string, number>()
  let open = 0
  // Refusals come in floods: one notice starts a quiet window, the ones during it are summed up when it ends.
  let quiet = false
  let suppressed = 0
  const suppressedClients = new Set<string>()
  const endQuiet = () => {
    if (suppressed === 0) {
      quiet = false
      return
    }
    const clients = [...suppressedClients].join(", ")
    options.onRefused(
      `refused ${suppressed} more connection${suppressed === 1 ? "" : "s"} over ${options.configKey} caps ` +
        `(clients: ${clients}${suppressedClients.size === NAMED_CLIENTS ? ", ..." : ""})`
    )
    suppressed = 0
    suppressedClients.clear()
    startQuiet()
  }
  const startQuiet = () => {
    quiet = true
    const timer = setTimeout(endQuiet, options.quietMs ?? 60_000) as { unref?: () => void }
    timer.unref?.()
  }
  const refuse = (socket: CappedSocket, client: string, why: string) => {
    socket.destroy()
    if (quiet) {
      suppressed++
      if (suppressedClients.size < NAMED_CLIENTS) suppressedClients.add(client)
      return false
    }
    options.onRefused(`refusing a connection from ${client}: ${why}`)
    startQuiet()
    return false
  }
  return {
    admit: (socket) => {
      const address = socket.remoteAddress ?? "unknown"
      const client = clientKeyOf(address)
      const counted = options.exempt?.(address) !== true
      const held = counted ? (counts.get(client) ?? 0) : 0
      if (counted && held >= options.perClient) {
        return refuse(
          socket,
          client,
          `it holds ${held} connections (${options.configKey}.connections_per_client ${options.perClient})`
        )
      }
      if (open >= options.total) {
        return refuse(
          socket,
          client,
          `the server holds ${open} connections (${options.configKey}.connections ${options.total})`
        )
      }
      open++
      if (counted) counts.set(client, held + 1)
      socket.once("close", () => {
        open--
        if (!counted) return
        const left = (counts.get(client) ?? 1) - 1
        if (left === 0) counts.delete(client)
        else counts.set(client, left)
      })
      return true
    },
    open: () => open
  }
}
