import * as os from "node:os"
import * as path from "node:path"
import { GoDuration, parsePrefix, validateYaml } from "@gatehouse-edge/core"
import { formatIssue, isLoopbackHost } from "@gatehouse-edge/core/domain"
import { Schema } from "effect"

const NonEmpty = Schema.String.check(Schema.isMinLength(1))

const Prefix = Schema.String.check(
  Schema.makeFilter((text: string) => (parsePrefix(text) === undefined ? `not an IP prefix: ${text}` : undefined))
)

// Shorter than a loaded server's answer on loopback: every checked login would be refused.
const minimumCallTimeoutMs = 100

/** One policy rule: who it covers, and whether a login is let in (`accept`), held for approval (`check`) or refused. */
const RuleFields = Schema.Struct({
  /** Source prefixes (`10.0.0.0/8`, `::1/128`); absent: every source. */
  sources: Schema.optionalKey(Schema.Array(Prefix)),
  /** Local users (the SSH login name); absent: every user this gate knows. */
  users: Schema.optionalKey(Schema.Array(NonEmpty)),
  /** Destination names; absent: every destination. A gate only sees its own `destination`. */
  destinations: Schema.optionalKey(Schema.Array(NonEmpty)),
  action: Schema.Literals(["accept", "check", "reject"]),
  /** How long an approval of a check covers later logins (default 12h). */
  check_period: Schema.optionalKey(GoDuration()),
  /** `source_destination` (default): one approval per (source, destination, user); `source`: per (source, user). */
  check_scope: Schema.optionalKey(Schema.Literals(["source_destination", "source"]))
})

/** The gate's configuration file. */
const GateFile = Schema.Struct({
  /** `host:port` the SSH server listens on (default 127.0.0.1:2222). */
  listen: Schema.optionalKey(NonEmpty),
  /** This host's name in `ssh_check` requests (default: the machine's hostname). */
  destination: Schema.optionalKey(NonEmpty),
  /** The SSH host key (OpenSSH or PEM private key); created (ed25519, mode 0600) when the file does not exist. */
  host_key: NonEmpty,
  gatehouse: Schema.Struct({
    /** The server's gRPC address `host:port` (default 127.0.0.1:50443), plaintext: loopback only. */
    grpc: Schema.optionalKey(NonEmpty),
    /** A file holding an API key (such as the server's `data/admin.key`). */
    api_key_file: Schema.optionalKey(NonEmpty),
    /** Or the server's unix socket, which needs no key. */
    unix_socket: Schema.optionalKey(NonEmpty),
    /** Use TLS to the server, trusting this CA certificate (PEM); without it the channel is plaintext. */
    ca: Schema.optionalKey(NonEmpty),
    /** How long one call (finding an approval, making a request) may take before the login is refused (10s). */
    call_timeout: Schema.optionalKey(GoDuration({ minimum: minimumCallTimeoutMs }))
  }),
  /** Local users that may log in: name → their `authorized_keys` file. */
  users: Schema.Record(NonEmpty, NonEmpty),
  /** Rules in order; the first that matches decides; a login no rule matches is refused. */
  policy: Schema.Array(RuleFields),
  session: Schema.optionalKey(
    Schema.Struct({
      /** A fixed command run for every approved session (the client's command is in `SSH_ORIGINAL_COMMAND`). */
      command: Schema.optionalKey(NonEmpty),
      /** The shell that runs the client's command or an interactive session (default /bin/sh). */
      shell: Schema.optionalKey(NonEmpty)
    })
  )
})

export type PolicyAction = "accept" | "check" | "reject"
export type CheckScope = "source_destination" | "source"

export interface PolicyRule {
  readonly sources: ReadonlyArray<string> | undefined
  readonly users: ReadonlyArray<string> | undefined
  readonly destinations: ReadonlyArray<string> | undefined
  readonly action: PolicyAction
  readonly checkPeriodMs: number
  readonly checkScope: CheckScope
}

/** The resolved configuration: defaults applied, paths absolute. */
export interface GateConfig {
  readonly listen: { readonly host: string; readonly port: number }
  readonly destination: string
  readonly hostKeyFile: string
  readonly gatehouse: (
    | {
        readonly _tag: "Tcp"
        readonly address: string
        readonly apiKeyFile: string
        readonly ca: string | undefined
      }
    | { readonly _tag: "UnixSocket"; readonly path: string }
  ) & {
    /**
     * The deadline of each unary call. A server that stops answering without closing the connection (frozen, or
     * its host gone without a reset) would otherwise hold the login, and its connection's place, for good.
     */
    readonly callTimeoutMs: number
  }
  /** Local user → absolute path of its authorized_keys file. */
  readonly users: ReadonlyMap<string, string>
  readonly policy: ReadonlyArray<PolicyRule>
  readonly session: { readonly command: string | undefined; readonly shell: string }
}

/** The check period when a rule does not name one: 12 hours. */
export const defaultCheckPeriodMs = 12 * 60 * 60 * 1000

/** How long a call to Gatehouse may take when `gatehouse.call_timeout` is not given: 10 seconds. */
export const defaultCallTimeoutMs = 10_000

const parseListen = (text: string): { host: string; port: number } | string => {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text)
  const port = match === null ? Number.NaN : Number(match[3])
  if (match === null || port > 65535) return `listen must be host:port (such as 127.0.0.1:2222), got ${text}`
  return { host: match[1] ?? match[2]!, port }
}

/**
 * Reads the gate's YAML: every problem is reported with its line and column (core's `validateYaml`), relative
 * paths resolve against the file's directory. Returns the problems as text lines when it is not valid.
 */
/** The host of a gRPC address `host:port` or `[v6]:port` (grpc-js's `dns:`/`ipv4:` schemes stripped). */
const hostOfAddress = (address: string): string => {
  const plain = address.replace(/^(dns|ipv4|ipv6):(\/\/\/)?/, "")
  const bracketed = /^\[([^\]]+)\]/.exec(plain)
  if (bracketed !== null) return bracketed[1]!
  const colon = plain.lastIndexOf(":")
  return colon > 0 && plain.indexOf(":") === colon ? plain.slice(0, colon) : plain
}

export const parseGateConfig = (text: string, file: string): GateConfig | { readonly problems: Array<string> } => {
  const result = validateYaml(GateFile, text, { file })
  if (result._tag !== "Valid") return { problems: result.issues.map(formatIssue) }
  const raw = result.value
  const base = path.dirname(path.resolve(file))
  const resolve = (p: string) => path.resolve(base, p)
  const problems: Array<string> = []
  const listen = parseListen(raw.listen ?? "127.0.0.1:2222")
  if (typeof listen === "string") problems.push(`${file}: ${listen}`)
  const { grpc, api_key_file, unix_socket, ca, call_timeout } = raw.gatehouse
  if (unix_socket !== undefined && (grpc !== undefined || api_key_file !== undefined))
    problems.push(`${file}: gatehouse: give either unix_socket or grpc with api_key_file, not both`)
  if (unix_socket === undefined && api_key_file === undefined)
    problems.push(`${file}: gatehouse: api_key_file is required with grpc (or use unix_socket)`)
  // Plaintext would send the API key in the clear and trust any answer: a forged "approved" lets a login in.
  if (grpc !== undefined && ca === undefined && !isLoopbackHost(hostOfAddress(grpc)))
    problems.push(`${file}: gatehouse.grpc: ${grpc} is not on loopback: give ca (TLS), or use unix_socket`)
  for (const [index, rule] of raw.policy.entries())
    for (const user of rule.users ?? [])
      if (raw.users[user] === undefined)
        problems.push(`${file}: policy[${index}].users: ${user} is not one of the users this gate knows`)
  if (problems.length > 0 || typeof listen === "string") return { problems }
  return {
    listen,
    destination: raw.destination ?? os.hostname(),
    hostKeyFile: resolve(raw.host_key),
    gatehouse: {
      ...(unix_socket !== undefined
        ? { _tag: "UnixSocket" as const, path: resolve(unix_socket) }
        : {
            _tag: "Tcp" as const,
            address: grpc ?? "127.0.0.1:50443",
            apiKeyFile: resolve(api_key_file!),
            ca: ca === undefined ? undefined : resolve(ca)
          }),
      callTimeoutMs: call_timeout ?? defaultCallTimeoutMs
    },
    users: new Map(Object.entries(raw.users).map(([user, file]) => [user, resolve(file)])),
    policy: raw.policy.map((rule) => ({
      sources: rule.sources,
      users: rule.users,
      destinations: rule.destinations,
      action: rule.action,
      checkPeriodMs: rule.check_period ?? defaultCheckPeriodMs,
      checkScope: rule.check_scope ?? "source_destination"
    })),
    session: { command: raw.session?.command, shell: raw.session?.shell ?? "/bin/sh" }
  }
}
