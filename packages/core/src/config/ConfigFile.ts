import * as Schema from "effect/Schema"
import { parseHostKeyPin } from "../hypervisor/HostKeyPin.js"
import { fingerprintProblem } from "../hypervisor/TlsFingerprint.js"
import { GoDuration } from "../yaml/GoDuration.js"
import {
  AddressOrPrefixValue,
  ByteSizeValue,
  HostNameValue,
  HttpsUrlValue,
  ListenAddressValue,
  PathValue,
  PrefixValue,
  SecretValue,
  UrlValue
} from "./ConfigValues.js"

const opt = Schema.optionalKey
const NonEmpty = Schema.String.check(Schema.isMinLength(1))
const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Port = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 65535 }))
const Secret = SecretValue(NonEmpty)

const HttpLimits = Schema.Struct({
  requests_per_client: opt(PositiveInt),
  streams_per_client: opt(PositiveInt),
  streams: opt(PositiveInt),
  queued_per_client: opt(ByteSizeValue.check(Schema.isGreaterThanOrEqualTo(1))),
  queued: opt(ByteSizeValue.check(Schema.isGreaterThanOrEqualTo(1))),
  // TCP connections at once, counted by the socket's peer (a trusted proxy only in the total).
  connections_per_client: opt(PositiveInt),
  connections: opt(PositiveInt),
  // Bytes the request bodies being read may hold, all clients and one client (see BodiesInFlight).
  bodies_in_flight: opt(ByteSizeValue.check(Schema.isGreaterThanOrEqualTo(1))),
  bodies_in_flight_per_client: opt(ByteSizeValue.check(Schema.isGreaterThanOrEqualTo(1)))
})

const HttpSection = Schema.Struct({
  addr: opt(ListenAddressValue),
  // Where browsers reach the server (behind a TLS-terminating proxy: https://...): the OIDC redirect URI, the
  // origin WebSocket upgrades must come from, and whether cookies are Secure.
  // An origin that parses as a URL too (a port over 65535 or a bad host matches the pattern).
  public_url: opt(
    NonEmpty.check(
      Schema.makeFilter((text: string) =>
        /^https?:\/\/[^/?#\s]+\/?$/.test(text) && URL.canParse(text)
          ? undefined
          : "expected the server's origin, e.g. https://gate.example.com (no path)"
      )
    )
  ),
  // Sign-in, route edits and validation all send a body: a limit below the smallest of them refuses them all (413)
  // and leaves no way in. 1 KiB holds a sign-in form or a small JSON body.
  max_body: opt(
    ByteSizeValue.check(
      Schema.makeFilter((bytes: number) =>
        bytes >= 1024
          ? undefined
          : `expected at least 1KiB (a smaller limit refuses every request with a body, sign-in included), got ${bytes}`
      )
    )
  ),
  allowed_hosts: opt(Schema.Array(HostNameValue)),
  // Reverse proxies whose X-Forwarded-For is believed: behind one, every client would otherwise share its address
  // (per-client limits, sign-in throttling, session listings).
  trusted_proxies: opt(Schema.Array(AddressOrPrefixValue)),
  limits: opt(HttpLimits)
})

const TlsFiles = Schema.Struct({ cert: PathValue, key: PathValue })

const GrpcLimits = Schema.Struct({
  calls_per_client: opt(PositiveInt),
  streams_per_client: opt(PositiveInt),
  streams: opt(PositiveInt),
  connections_per_client: opt(PositiveInt),
  connections: opt(PositiveInt)
})

const GrpcSection = Schema.Struct({
  addr: opt(ListenAddressValue),
  unix_socket: opt(PathValue),
  tls: opt(TlsFiles),
  insecure: opt(Schema.Boolean),
  limits: opt(GrpcLimits)
})

const RoleName = Schema.Literals(["admin", "operator", "viewer"])

const LocalUser = Schema.Struct({
  name: NonEmpty,
  role: opt(RoleName),
  // A hash is a secret too: it can be attacked offline.
  password_hash: SecretValue(
    NonEmpty.check(
      Schema.isPattern(/^\$(argon2id|2[aby])\$/, {
        message: "expected an argon2id or bcrypt hash ($argon2id$... or $2b$...)"
      })
    )
  )
})

const Oidc = Schema.Struct({
  // openid-client refuses plain HTTP except where it is told to allow it: the client allows it on loopback only.
  issuer: HttpsUrlValue({
    expected: "the https:// URL of the OpenID provider (http:// only for a provider on loopback)",
    loopbackHttp: true
  }),
  client_id: NonEmpty,
  client_secret: opt(Secret),
  client_secret_file: opt(PathValue),
  scopes: opt(Schema.Array(NonEmpty)),
  allowed_users: opt(Schema.Array(NonEmpty)),
  allowed_groups: opt(Schema.Array(NonEmpty)),
  // Admitting every account of the provider is said in so many words: at a public provider (Google, Entra ID's
  // common endpoint) that is anyone with an account. Without it, one of the lists above must name someone.
  allow_any_user: opt(Schema.Boolean),
  groups_claim: opt(NonEmpty),
  roles: opt(
    Schema.Struct({
      admin: opt(Schema.Array(NonEmpty)),
      operator: opt(Schema.Array(NonEmpty)),
      viewer: opt(Schema.Array(NonEmpty))
    })
  ),
  default_role: opt(RoleName)
})

const AuthSection = Schema.Struct({
  users: opt(Schema.Array(LocalUser)),
  oidc: opt(Oidc),
  session_ttl: opt(GoDuration({ minimum: 60_000 }))
})

// Checked here, not at the first request: a pin that can never match would otherwise surface as a failed call.
const TlsFingerprint = NonEmpty.check(
  Schema.makeFilter((text: string) => {
    const problem = fingerprintProblem(text)
    return problem === undefined ? undefined : `${problem} (pvenode cert info), got ${JSON.stringify(text)}`
  })
)

const HostKey = NonEmpty.check(
  Schema.makeFilter((text: string) =>
    parseHostKeyPin(text) !== undefined
      ? undefined
      : `expected the node's public host key ("ssh-ed25519 AAAA…", from /etc/ssh/ssh_host_ed25519_key.pub) or its ` +
        `fingerprint ("SHA256:…", ssh-keygen -lf), got ${JSON.stringify(text)}`
  )
)

const ProxmoxTls = Schema.Struct({
  fingerprint: opt(TlsFingerprint),
  ca_file: opt(PathValue),
  insecure: opt(Schema.Boolean)
})

const SshNode = Schema.Struct({ host: NonEmpty, port: opt(Port), host_key: opt(HostKey) })

const ProxmoxSsh = Schema.Struct({
  user: opt(NonEmpty),
  port: opt(Port),
  private_key: opt(PathValue),
  nodes: opt(Schema.Record(Schema.String, SshNode))
})

const ProxmoxCluster = Schema.Struct({
  name: NonEmpty,
  // The API client speaks HTTPS only (PVE serves nothing else on 8006): http:// would fail every request.
  url: UrlValue({
    schemes: ["https"],
    expected: "the https:// URL of the Proxmox VE API, e.g. https://pve:8006"
  }),
  token_id: opt(
    NonEmpty.check(Schema.isPattern(/^[^@!\s]+@[^@!\s]+![^@!\s]+$/, { message: "expected user@realm!name" }))
  ),
  // Proxmox shows an API token's secret once, as a UUID; anything else is a paste of the wrong value.
  secret: opt(
    SecretValue(
      NonEmpty.check(
        Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
          message: "expected the API token's secret, a UUID such as 00000000-0000-0000-0000-000000000000"
        })
      )
    )
  ),
  secret_file: opt(PathValue),
  username: opt(NonEmpty),
  password: opt(Secret),
  password_file: opt(PathValue),
  realm: opt(NonEmpty),
  tls: opt(ProxmoxTls),
  refresh_interval: opt(GoDuration({ minimum: 1000 })),
  lookup_concurrency: opt(PositiveInt),
  ssh: opt(ProxmoxSsh)
})

// A directory `/hypervisor/tail` may read below; compared with the normalised file, so it must be absolute and
// without `..` (which would make the prefix mean something else than it reads).
const TailPath = Schema.String.check(
  Schema.makeFilter((text: string) =>
    text.startsWith("/") && !text.split("/").includes("..")
      ? undefined
      : `expected an absolute directory without \`..\`, e.g. /var/log, got ${JSON.stringify(text)}`
  )
)

const DockerHost = Schema.Struct({
  name: NonEmpty,
  url: UrlValue({ schemes: ["unix", "tcp", "http", "https"], expected: "unix:///path or tcp://host:port" }),
  tls: opt(Schema.Struct({ ca: opt(PathValue), cert: opt(PathValue), key: opt(PathValue) }))
})

// A certificate's name names its directory in the data dir (ACME), so it stays a plain file name.
const CertificateName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
    message: "expected a name of letters, digits, '.', '_' and '-' (at most 63), starting with a letter or digit"
  })
)

const Certificate = Schema.Struct({ name: CertificateName, cert: PathValue, key: PathValue })

const DomainName = Schema.String.check(
  Schema.isPattern(
    /^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/,
    {
      message: "expected a fully qualified domain name such as www.example.com (or *.example.com for dns-01)"
    }
  )
)

const ZoneName = Schema.String.check(
  Schema.isPattern(/^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$/, {
    message: "expected a DNS zone such as example.com"
  })
)

const AcmeCertificate = Schema.Struct({
  name: CertificateName,
  domains: Schema.Array(DomainName).check(Schema.isMinLength(1)),
  challenge: opt(Schema.Literals(["http-01", "dns-01"]))
})

const AcmeDns01 = Schema.Struct({
  provider: Schema.Literal("rfc2136"),
  server: ListenAddressValue,
  zone: ZoneName,
  key_name: NonEmpty,
  key_algorithm: opt(Schema.Literals(["hmac-sha256", "hmac-sha384", "hmac-sha512"])),
  key_secret: opt(Secret),
  key_secret_file: opt(PathValue),
  ttl: opt(GoDuration({ minimum: 1000 })),
  propagation_timeout: opt(GoDuration({ minimum: 1000 }))
})

const AcmeSection = Schema.Struct({
  directory: HttpsUrlValue({ expected: "the https:// URL of the ACME directory" }),
  email: opt(NonEmpty.check(Schema.isPattern(/^[^@\s]+@[^@\s]+$/, { message: "expected an email address" }))),
  ca_file: opt(PathValue),
  renew_before: opt(GoDuration({ minimum: 3_600_000 })),
  http01: opt(Schema.Struct({ addr: ListenAddressValue })),
  dns01: opt(AcmeDns01),
  certificates: opt(Schema.Array(AcmeCertificate))
})

const AuthRequests = Schema.Struct({
  ttl: opt(GoDuration({ minimum: 1000 })),
  max_pending: opt(PositiveInt),
  retention: opt(GoDuration({ minimum: 60_000 })),
  // Requests that expired without a verdict: kept this long and at most this many (see AuthRequestUndecided).
  expired_retention: opt(GoDuration({ minimum: 60_000 })),
  expired_max: opt(PositiveInt),
  // Creates a second, and at once, by a credential that may create but not decide (see AuthRequestCreateLimit).
  create_rate: opt(Schema.Number.check(Schema.isGreaterThan(0), Schema.isFinite())),
  create_burst: opt(PositiveInt),
  ipv4_prefix: opt(PrefixValue(4)),
  ipv6_prefix: opt(PrefixValue(6))
})

/**
 * The shape of `gatehouse.yml`. Every key is optional; unknown keys are errors with a "did you mean" hint.
 * Secrets decode to `Redacted`. Features do not read this shape: they read the typed, resolved sections of
 * `GatehouseConfig` (paths absolute, defaults applied).
 */
export const ConfigFile = Schema.Struct({
  http: opt(HttpSection),
  grpc: opt(GrpcSection),
  data_dir: opt(PathValue),
  routes_dir: opt(PathValue),
  auth: opt(AuthSection),
  hypervisor: opt(
    Schema.Struct({ clusters: opt(Schema.Array(ProxmoxCluster)), tail_paths: opt(Schema.Array(TailPath)) })
  ),
  docker: opt(Schema.Struct({ hosts: opt(Schema.Array(DockerHost)) })),
  certificates: opt(Schema.Array(Certificate)),
  acme: opt(AcmeSection),
  auth_requests: opt(AuthRequests),
  // 0 keeps no history: followers still resume from the newest event (see `EventBus`).
  events: opt(Schema.Struct({ history: opt(NonNegativeInt) })),
  log: opt(
    Schema.Struct({
      level: opt(Schema.Literals(["debug", "info", "warn", "error"])),
      format: opt(Schema.Literals(["json", "pretty", "auto"]))
    })
  )
}).annotate({ identifier: "GatehouseConfigFile" })
export type ConfigFile = typeof ConfigFile.Type
