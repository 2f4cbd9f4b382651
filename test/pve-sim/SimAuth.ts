import * as crypto from "node:crypto"

/** ACL entries: a path (`/`, `/vms`, `/vms/101`, `/nodes/pve1`, …) to the privileges granted there. */
export type SimAcl = Readonly<Record<string, ReadonlyArray<string>>>

/** Every privilege of PVE 8 (what `Administrator` holds); the default ACL grants all of them on `/`. */
export const ALL_PRIVILEGES: ReadonlyArray<string> = [
  "Datastore.Allocate",
  "Datastore.AllocateSpace",
  "Datastore.AllocateTemplate",
  "Datastore.Audit",
  "Group.Allocate",
  "Mapping.Audit",
  "Mapping.Modify",
  "Mapping.Use",
  "Permissions.Modify",
  "Pool.Allocate",
  "Pool.Audit",
  "Realm.Allocate",
  "Realm.AllocateUser",
  "SDN.Allocate",
  "SDN.Audit",
  "SDN.Use",
  "Sys.AccessNetwork",
  "Sys.Audit",
  "Sys.Console",
  "Sys.Incoming",
  "Sys.Modify",
  "Sys.PowerMgmt",
  "Sys.Syslog",
  "User.Modify",
  "VM.Allocate",
  "VM.Audit",
  "VM.Backup",
  "VM.Clone",
  "VM.Config.CDROM",
  "VM.Config.CPU",
  "VM.Config.Cloudinit",
  "VM.Config.Disk",
  "VM.Config.HWType",
  "VM.Config.Memory",
  "VM.Config.Network",
  "VM.Config.Options",
  "VM.Console",
  "VM.Migrate",
  "VM.Monitor",
  "VM.PowerMgmt",
  "VM.Snapshot",
  "VM.Snapshot.Rollback"
]

/** The ACL of an administrator: everything on `/`, propagated. */
export const FULL_ACL: SimAcl = { "/": ALL_PRIVILEGES }

const ancestors = (path: string): ReadonlyArray<string> => {
  const parts = path.split("/").filter((p) => p !== "")
  const out: Array<string> = []
  for (let i = parts.length; i > 0; i--) out.push(`/${parts.slice(0, i).join("/")}`)
  out.push("/")
  return out
}

/**
 * The privileges an ACL grants on `path`: the nearest entry on the path or an ancestor wins, as in PVE, where a
 * more specific ACL replaces the roles propagated from above.
 */
export const privilegesAt = (acl: SimAcl, path: string): ReadonlySet<string> => {
  for (const p of ancestors(path)) {
    const privs = acl[p]
    if (privs !== undefined) return new Set(privs)
  }
  return new Set()
}

/** Who is calling, and what they may do. */
export interface Caller {
  readonly userid: string
  /** `user@realm!name` for token callers. */
  readonly tokenid?: string
  readonly privileges: (path: string) => ReadonlySet<string>
  /** The ACL paths relevant to this caller (for `/access/permissions`). */
  readonly aclPaths: ReadonlyArray<string>
}

/** A caller authenticated as a user (ticket) with that user's ACL. */
export const userCaller = (userid: string, acl: SimAcl): Caller => ({
  userid,
  privileges: (path) => privilegesAt(acl, path),
  aclPaths: Object.keys(acl)
})

/**
 * A token caller: without privilege separation it has its user's privileges; with it, only those both its own ACL
 * and its user's grant (PVE intersects them, so for an administrator user that is the token's ACL).
 */
export const tokenCaller = (tokenid: string, userAcl: SimAcl, tokenAcl: SimAcl, privsep: boolean): Caller => {
  const userid = tokenid.slice(0, tokenid.indexOf("!"))
  if (!privsep) return { ...userCaller(userid, userAcl), tokenid }
  return {
    userid,
    tokenid,
    privileges: (path) => {
      const own = privilegesAt(tokenAcl, path)
      const user = privilegesAt(userAcl, path)
      return new Set([...own].filter((p) => user.has(p)))
    },
    aclPaths: Object.keys(tokenAcl)
  }
}

/** The API token in an Authorization header, parsed with the server's own regexes; `undefined` when absent. */
export const parseApiToken = (
  authorization: string | undefined
): { readonly tokenid: string; readonly secret: string } | "malformed" | undefined => {
  if (authorization === undefined) return undefined
  const header = /(?:^|\s)PVEAPIToken(?:=| )([^;]*)/.exec(authorization)
  if (header === null) return undefined
  // Greedy first group: the split is at the LAST "=".
  const split = /^(.*)=(.*)$/.exec(header[1]!)
  if (split === null) return "malformed"
  // PVE's userid and token-name regexes (realm and token name: a letter, then at least one more character).
  const tokenid = split[1]!
  if (!/^[^\s:/]+@[A-Za-z][A-Za-z0-9.\-_]+![A-Za-z][A-Za-z0-9.\-_]+$/.test(tokenid)) return "malformed"
  return { tokenid, secret: split[2]! }
}

/** The ticket from `Cookie: PVEAuthCookie=…` (URL-decoded) or `Authorization: PVEAuthCookie=…`. */
export const extractTicket = (cookie: string | undefined, authorization: string | undefined): string | undefined => {
  if (cookie !== undefined) {
    for (const part of cookie.split(";")) {
      const [name, ...rest] = part.trim().split("=")
      if (name === "PVEAuthCookie") {
        try {
          return decodeURIComponent(rest.join("="))
        } catch {
          return rest.join("=")
        }
      }
    }
  }
  if (authorization !== undefined) {
    const m = /(?:^|\s)PVEAuthCookie=([^;\s]*)/.exec(authorization)
    if (m !== null) return m[1]
  }
  return undefined
}

const hex8 = (seconds: number) => seconds.toString(16).toUpperCase().padStart(8, "0")

/** Signs and verifies tickets (RSA-SHA256, as pve-access-control) and CSRF tokens (HMAC-SHA256). */
export class TicketAuthority {
  private readonly keys = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
  private readonly csrfSecret = crypto.randomBytes(32)

  constructor(
    private readonly now: () => number,
    private readonly lifetimeMs: number
  ) {}

  /** `PVE:<userid>:<HEX8 time>::<base64 signature>`. */
  issueTicket(userid: string): string {
    const plain = `PVE:${userid}:${hex8(Math.floor(this.now() / 1000))}`
    const signature = crypto.sign("sha256", Buffer.from(plain), this.keys.privateKey).toString("base64")
    return `${plain}::${signature}`
  }

  /** The userid of a valid, unexpired ticket, else `undefined` (PVE allows 5 min of clock skew into the future). */
  verifyTicket(ticket: string): string | undefined {
    const m = /^(PVE:(\S+?):([0-9A-F]{8}))::(.+)$/.exec(ticket)
    if (m === null) return undefined
    let ok = false
    try {
      ok = crypto.verify("sha256", Buffer.from(m[1]!), this.keys.publicKey, Buffer.from(m[4]!, "base64"))
    } catch {
      ok = false
    }
    if (!ok || !this.fresh(m[3]!)) return undefined
    return m[2]
  }

  /** `<HEX8 time>:<43-char unpadded base64 HMAC-SHA256 of "<HEX8>:<userid>">`. */
  issueCsrf(userid: string): string {
    const time = hex8(Math.floor(this.now() / 1000))
    return `${time}:${this.csrfDigest(time, userid)}`
  }

  verifyCsrf(token: string | undefined, userid: string): boolean {
    if (token === undefined) return false
    const m = /^([0-9A-F]{8}):(\S+)$/.exec(token)
    if (m === null || !this.fresh(m[1]!)) return false
    const expected = Buffer.from(this.csrfDigest(m[1]!, userid))
    const given = Buffer.from(m[2]!)
    return expected.length === given.length && crypto.timingSafeEqual(expected, given)
  }

  private csrfDigest(time: string, userid: string): string {
    return crypto.createHmac("sha256", this.csrfSecret).update(`${time}:${userid}`).digest("base64").replace(/=+$/, "")
  }

  private fresh(timeHex: string): boolean {
    const age = this.now() / 1000 - Number.parseInt(timeHex, 16)
    return age > -300 && age < this.lifetimeMs / 1000
  }
}
