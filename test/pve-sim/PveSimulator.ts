import type * as http from "node:http"
import * as https from "node:https"
import type * as net from "node:net"
import * as zlib from "node:zlib"
import { type GuestBackend, MemoryBackend } from "./GuestBackend.js"
import {
  ALL_PRIVILEGES,
  type Caller,
  extractTicket,
  FULL_ACL,
  parseApiToken,
  type SimAcl,
  TicketAuthority,
  tokenCaller,
  userCaller
} from "./SimAuth.js"
import { generateCertificate, type SimCertificate } from "./SimCertificate.js"
import { PveError, parseParams, sendBare, sendBody, sendData, sendError, validateParams } from "./SimHttp.js"
import { JournalStream, matchRoute, Paged } from "./SimRoutes.js"
import { defaultGuests, defaultNodes, type SimGuest, type SimNode } from "./SimState.js"
import { SimWorld } from "./SimWorld.js"

export type { GuestBackend } from "./GuestBackend.js"
export type { SimAcl } from "./SimAuth.js"
export type { SimGuest, SimNode } from "./SimState.js"

/** An API token the simulator accepts. */
export interface SimToken {
  /** `user@realm!name`. */
  readonly tokenId: string
  /** A UUID. */
  readonly secret: string
  /** Privilege separation: the token has only its own `acl` (intersected with its user's). */
  readonly privsep?: boolean
  readonly acl?: SimAcl
}

/** A user that may log in with a password (ticket auth). */
export interface SimUser {
  readonly userid: string
  readonly password: string
  /** Defaults to every privilege on `/`. */
  readonly acl?: SimAcl
}

/** Options of {@link startPveSimulator}; every one has a default. */
export interface PveSimOptions {
  readonly port?: number
  /** Delay of every authentication failure (real PVE: 3000 ms). */
  readonly authFailureDelayMs?: number
  /** How long a power task runs before it acts and stops. */
  readonly taskDurationMs?: number
  /**
   * How often pvestatd writes guest stats to the RRD cache that `/cluster/resources` reads (real PVE: 10 s, the
   * default). Tests that need an update sooner call {@link PveSim.sampleRrd}.
   */
  readonly rrdIntervalMs?: number
  readonly ticketLifetimeMs?: number
  /** The clock (ms) for tickets, task times and uptimes. */
  readonly now?: () => number
  readonly tokens?: ReadonlyArray<SimToken>
  readonly users?: ReadonlyArray<SimUser>
  readonly nodes?: ReadonlyArray<SimNode>
  readonly guests?: ReadonlyArray<SimGuest>
  readonly backend?: GuestBackend
  /** The TLS certificate to serve (e.g. one signed by a test CA); default a fresh self-signed one. */
  readonly certificate?: SimCertificate
}

/** An error (or odd answer) to inject: requests whose path matches get it instead of the real answer. */
export interface SimFault {
  /** A RegExp tested against the path, or a path prefix (either form: `/api2/json/…` or relative to it). */
  readonly match: RegExp | string
  readonly status: number
  readonly reason: string
  /** A raw body (e.g. `not json`); default the PVE error envelope with `reason` as message. */
  readonly body?: string
  readonly once?: boolean
  /** Applies to this many matching requests, then is cleared (`once` is `times: 1`). */
  readonly times?: number
}

/** One request the simulator received. */
export interface SimRequest {
  readonly method: string
  /** The URL path as sent, e.g. `/api2/json/cluster/resources`. */
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  /** Which credentials it carried (valid or not). */
  readonly authKind: "token" | "ticket" | "none"
}

/** A running simulator and its test controls. */
export interface PveSim {
  readonly url: string
  readonly port: number
  readonly fingerprint: string
  readonly certPem: string
  readonly token: { readonly tokenId: string; readonly secret: string }
  readonly user: { readonly userid: string; readonly password: string }
  readonly requests: ReadonlyArray<SimRequest>
  /** Requests whose path starts with the prefix (full or relative to `/api2/json`) or matches the RegExp. */
  readonly countRequests: (match: string | RegExp) => number
  readonly resetRequests: () => void
  readonly setGuest: (vmid: number, patch: Partial<SimGuest>) => void
  readonly addGuest: (guest: SimGuest) => void
  readonly removeGuest: (vmid: number) => void
  readonly setNode: (name: string, patch: Partial<SimNode>) => void
  /** Adds a fault (the newest matching one applies); `undefined` clears all faults. */
  readonly fault: (fault: SimFault | undefined) => void
  /** Matching requests are accepted and never answered; `undefined` stops hanging new requests. */
  readonly hang: (match: RegExp | string | undefined) => void
  /** The next power task of `vmid` ends with this exit status instead of acting. */
  readonly failNextTask: (vmid: number, exitstatus: string) => void
  /** The next power task of `vmid` acts, then ends `WARNINGS: <warnings>` (PVE's success with warnings). */
  readonly warnNextTask: (vmid: number, warnings: number) => void
  /** pvestatd's next update, now: `/cluster/resources` shows every guest as it is at this moment. */
  readonly sampleRrd: () => Promise<void>
  /** Closes the listener and destroys open connections (an outage). */
  readonly stop: () => Promise<void>
  /** Listens again on the same port with the same certificate. */
  readonly start: () => Promise<void>
  readonly close: () => Promise<void>
}

/** The default API token: `root@pam!gatehouse` with full privileges. */
export const DEFAULT_TOKEN: SimToken = {
  tokenId: "root@pam!gatehouse",
  secret: "5d3b8c1e-7f42-4a9b-9c6d-2e8f0a1b3c4d"
}

/** The default user: `root@pam` / `sim-password`. */
export const DEFAULT_USER: SimUser = { userid: "root@pam", password: "sim-password" }

const matches = (match: RegExp | string, path: string, rel: string) =>
  typeof match === "string" ? path.startsWith(match) || rel.startsWith(match) : match.test(path) || match.test(rel)

const API_PREFIX = "/api2/json"

/** Starts a Proxmox VE API simulator over HTTPS on 127.0.0.1 with a fresh self-signed certificate. */
export const startPveSimulator = async (options: PveSimOptions = {}): Promise<PveSim> => {
  const now = options.now ?? Date.now
  const authDelay = options.authFailureDelayMs ?? 3000
  const tokens = options.tokens ?? [DEFAULT_TOKEN]
  const users = options.users ?? [DEFAULT_USER]
  const cert = options.certificate ?? generateCertificate()
  const tickets = new TicketAuthority(now, options.ticketLifetimeMs ?? 2 * 3600 * 1000)
  const world = new SimWorld(
    now,
    options.backend ?? new MemoryBackend(),
    options.taskDurationMs ?? 300,
    options.nodes ?? defaultNodes,
    options.guests ?? defaultGuests,
    options.rrdIntervalMs ?? 10_000
  )
  const requests: Array<SimRequest> = []
  let faults: Array<SimFault> = []
  // Matching requests each fault still applies to, for those given `once` or `times`.
  const faultsLeft = new Map<SimFault, number>()
  let hangMatch: RegExp | string | undefined
  const sockets = new Set<net.Socket>()
  const pendingTimers = new Set<NodeJS.Timeout>()

  const userAcl = (userid: string): SimAcl => users.find((u) => u.userid === userid)?.acl ?? FULL_ACL

  const later = (fn: () => void) => {
    const t = setTimeout(() => {
      pendingTimers.delete(t)
      fn()
    }, authDelay)
    pendingTimers.add(t)
  }

  /** Authenticates a request, or answers it (after the delay) and returns undefined. */
  const authenticate = (req: http.IncomingMessage, res: http.ServerResponse): Caller | undefined => {
    const authorization = req.headers.authorization
    const token = parseApiToken(authorization)
    const fail = (reason: string) => {
      later(() => sendBare(res, 401, reason))
      return undefined
    }
    if (token === "malformed") return fail("Authentication failed!")
    if (token !== undefined) {
      const t = tokens.find((x) => x.tokenId === token.tokenid)
      if (t === undefined || t.secret !== token.secret) return fail("Authentication failed!")
      const owner = t.tokenId.slice(0, t.tokenId.indexOf("!"))
      // A token of a user the simulator does not list has its own ACL (or everything) as the user's.
      const ownerAcl = users.some((u) => u.userid === owner) ? userAcl(owner) : (t.acl ?? FULL_ACL)
      return tokenCaller(t.tokenId, ownerAcl, t.acl ?? {}, t.privsep === true)
    }
    const ticket = extractTicket(req.headers.cookie, authorization)
    if (ticket === undefined) return fail("No ticket")
    const userid = tickets.verifyTicket(ticket)
    if (userid === undefined || !users.some((u) => u.userid === userid)) return fail("Authentication failed!")
    if (req.method !== "GET") {
      const csrf = req.headers.csrfpreventiontoken
      if (!tickets.verifyCsrf(Array.isArray(csrf) ? csrf[0] : csrf, userid))
        return fail("Permission denied - invalid csrf token")
    }
    return userCaller(userid, userAcl(userid))
  }

  const capabilities = (caller: Caller) => {
    const group = (path: string, prefixes: ReadonlyArray<string>) => {
      const privs = caller.privileges(path)
      return Object.fromEntries(
        ALL_PRIVILEGES.filter((p) => prefixes.some((x) => p.startsWith(x)) && privs.has(p)).map((p) => [p, 1])
      )
    }
    return {
      vms: group("/vms", ["VM."]),
      storage: group("/storage", ["Datastore."]),
      access: group("/access", ["User.", "Group.", "Permissions.", "Realm."]),
      nodes: group("/nodes", ["Sys."]),
      dc: group("/", ["Sys.Audit", "Sys.Modify", "SDN."]),
      sdn: group("/sdn", ["SDN."]),
      mapping: group("/mapping", ["Mapping."])
    }
  }

  const createTicket = (req: http.IncomingMessage, res: http.ServerResponse, body: string, query: URLSearchParams) => {
    if (parseApiToken(req.headers.authorization) !== undefined)
      throw new PveError(
        403,
        "Permission check failed (URI '/access/ticket' not available with API token, need proper ticket.)"
      )
    const raw = parseParams(req.headers["content-type"], body, query)
    if (raw instanceof PveError) throw raw
    const p = validateParams(raw, {
      username: { type: "string" },
      password: { type: "string" },
      realm: { type: "string", optional: true },
      otp: { type: "string", optional: true },
      path: { type: "string", optional: true },
      privs: { type: "string", optional: true },
      "new-format": { type: "boolean", optional: true },
      "tfa-challenge": { type: "string", optional: true }
    })
    let username = String(p.username)
    // As PVE's AccessControl.pm does: a given realm is appended, even to a name that has one.
    if (typeof p.realm === "string") username = `${username}@${p.realm}`
    const user = users.find((u) => u.userid === username)
    const password = String(p.password)
    const ok =
      user !== undefined &&
      (password === user.password || (password.startsWith("PVE:") && tickets.verifyTicket(password) === username))
    if (!ok) {
      later(() => sendError(req, res, new PveError(401, "authentication failure")))
      return
    }
    const caller = userCaller(username, userAcl(username))
    sendData(req, res, {
      username,
      ticket: tickets.issueTicket(username),
      CSRFPreventionToken: tickets.issueCsrf(username),
      cap: capabilities(caller)
    })
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, body: string) => {
    const url = new URL(req.url ?? "/", "https://127.0.0.1")
    const pathname = url.pathname
    const rel = pathname.startsWith(`${API_PREFIX}/`) ? pathname.slice(API_PREFIX.length) : pathname
    const method = req.method ?? "GET"
    const authorization = req.headers.authorization
    const authKind =
      authorization !== undefined && /(?:^|\s)PVEAPIToken(?:=| )/.test(authorization)
        ? "token"
        : extractTicket(req.headers.cookie, authorization) !== undefined
          ? "ticket"
          : "none"
    requests.push({ method, path: pathname, query: Object.fromEntries(url.searchParams), authKind })

    if (hangMatch !== undefined && matches(hangMatch, pathname, rel)) return
    // The newest fault wins where several match.
    const fault = faults.findLast((f) => matches(f.match, pathname, rel))
    if (fault !== undefined) {
      const left = faultsLeft.get(fault)
      if (left !== undefined && left <= 1) {
        faults = faults.filter((f) => f !== fault)
        faultsLeft.delete(fault)
      } else if (left !== undefined) {
        faultsLeft.set(fault, left - 1)
      }
      if (fault.body !== undefined) sendBody(req, res, fault.status, fault.reason, fault.body)
      else sendError(req, res, new PveError(fault.status, fault.reason))
      return
    }
    if (!pathname.startsWith(`${API_PREFIX}/`)) throw new PveError(501, "no such uri")
    if (rel === "/access/ticket") {
      if (method === "POST") return createTicket(req, res, body, url.searchParams)
      // GET only serves the login page's dummy answer.
      if (method === "GET") return sendData(req, res, null)
    }
    const caller = authenticate(req, res)
    if (caller === undefined) return
    const found = matchRoute(method, rel)
    if (found === undefined) throw new PveError(501, `Method '${method} ${rel}' not implemented`)
    const raw = parseParams(req.headers["content-type"], body, url.searchParams)
    if (raw instanceof PveError) throw raw
    const params = validateParams(raw, found.route.params)
    const result = await found.route.handler({
      world,
      caller,
      path: found.path,
      params,
      fingerprint: cert.fingerprint
    })
    if (result instanceof Paged) return sendData(req, res, result.data, { total: result.total })
    if (result instanceof JournalStream) {
      // PVE streams `mini-journalreader | gzip` as a download: gzip always, no Content-Length.
      res.writeHead(200, "OK", {
        Server: "pve-api-daemon/3.0",
        "Content-Type": "application/json",
        "Content-Encoding": "gzip"
      })
      const gz = zlib.createGzip()
      gz.pipe(res)
      gz.end(JSON.stringify({ data: result.lines }))
      return
    }
    sendData(req, res, result)
  }

  const server = https.createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks).toString("utf8")).catch((e: unknown) => {
        if (res.headersSent) return
        const error = e instanceof PveError ? e : new PveError(500, e instanceof Error ? e.message : String(e))
        sendError(req, res, error)
      })
    })
  })
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  // TLS handshake failures (e.g. a client rejecting the certificate) are the client's business.
  server.on("tlsClientError", () => {})

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject)
        resolve((server.address() as net.AddressInfo).port)
      })
    })
  const halt = () =>
    new Promise<void>((resolve) => {
      for (const t of pendingTimers) clearTimeout(t)
      pendingTimers.clear()
      if (!server.listening) {
        for (const s of sockets) s.destroy()
        return resolve()
      }
      server.close(() => resolve())
      for (const s of sockets) s.destroy()
    })

  const port = await listen(options.port ?? 0)
  const mainToken = tokens[0] ?? DEFAULT_TOKEN
  const mainUser = users[0] ?? DEFAULT_USER

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    fingerprint: cert.fingerprint,
    certPem: cert.certPem,
    token: { tokenId: mainToken.tokenId, secret: mainToken.secret },
    user: { userid: mainUser.userid, password: mainUser.password },
    requests,
    countRequests: (match) =>
      requests.filter((r) =>
        matches(match, r.path, r.path.startsWith(`${API_PREFIX}/`) ? r.path.slice(API_PREFIX.length) : r.path)
      ).length,
    resetRequests: () => {
      requests.length = 0
    },
    setGuest: (vmid, patch) => world.setGuest(vmid, patch),
    addGuest: (guest) => world.addGuest(guest),
    removeGuest: (vmid) => world.removeGuest(vmid),
    setNode: (name, patch) => world.setNode(name, patch),
    fault: (f) => {
      if (f === undefined) {
        faults = []
        faultsLeft.clear()
        return
      }
      faults = [...faults, f]
      const times = f.times ?? (f.once === true ? 1 : undefined)
      if (times !== undefined) faultsLeft.set(f, times)
    },
    hang: (match) => {
      hangMatch = match
    },
    failNextTask: (vmid, exitstatus) => {
      world.failNext.set(vmid, exitstatus)
    },
    warnNextTask: (vmid, warnings) => {
      world.warnNext.set(vmid, warnings)
    },
    sampleRrd: () => world.sampleRrd(),
    stop: halt,
    start: async () => {
      if (!server.listening) await listen(port)
    },
    close: async () => {
      world.close()
      await halt()
    }
  }
}
