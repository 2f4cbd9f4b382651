import { bytesInUnits, grpcPlaintextRefusal, isLoopbackHost } from "@gatehouse-edge/contract/domain"
import type { IssueCollector } from "../yaml/IssueCollector.js"
import type { ConfigFile } from "./ConfigFile.js"
import { formatListenAddress, type ListenAddress, parseListenAddress } from "./ConfigValues.js"
import { ConfigDefaults } from "./GatehouseConfig.js"

/** Whether users or OIDC are configured: without them the server only binds loopback addresses. */
export const isAuthConfigured = (file: ConfigFile): boolean =>
  (file.auth?.users?.length ?? 0) > 0 || file.auth?.oidc !== undefined

/** The HTTP and gRPC listen addresses of a validated file, defaults applied. */
export const listenAddresses = (file: ConfigFile): { readonly http: ListenAddress; readonly grpc: ListenAddress } => ({
  http: file.http?.addr ?? parseListenAddress(ConfigDefaults.httpAddr)!,
  grpc: file.grpc?.addr ?? parseListenAddress(ConfigDefaults.grpcAddr)!
})

type Path = ReadonlyArray<string | number>

// A secret is written inline or named as a file, never both: which one wins would be a guess.
const oneSecret = (issues: IssueCollector, at: Path, key: string, inline: unknown, file: unknown) => {
  if (inline !== undefined && file !== undefined)
    issues.add([...at, `${key}_file`], `set ${key} or ${key}_file, not both`)
}

/**
 * The ACME rules across keys: certificate names unique (files and ACME share one namespace), each certificate's
 * challenge configured, wildcards only over DNS-01, and a DNS-01 key with exactly one secret.
 */
const checkAcmeRules = (file: ConfigFile, issues: IssueCollector): void => {
  const seen = new Set<string>()
  for (const [index, certificate] of (file.certificates ?? []).entries()) {
    if (seen.has(certificate.name)) issues.add(["certificates", index, "name"], `duplicate name "${certificate.name}"`)
    seen.add(certificate.name)
  }
  const acme = file.acme
  if (acme === undefined) return
  const dns01 = acme.dns01
  if (dns01 !== undefined) {
    if (dns01.key_secret === undefined && dns01.key_secret_file === undefined) {
      issues.add(["acme", "dns01", "key_name"], "key_name needs key_secret or key_secret_file")
    }
    oneSecret(issues, ["acme", "dns01"], "key_secret", dns01.key_secret, dns01.key_secret_file)
  }
  for (const [index, certificate] of (acme.certificates ?? []).entries()) {
    const at = ["acme", "certificates", index]
    if (seen.has(certificate.name)) issues.add([...at, "name"], `duplicate name "${certificate.name}"`)
    seen.add(certificate.name)
    const challenge = certificate.challenge ?? (acme.http01 === undefined && dns01 !== undefined ? "dns-01" : "http-01")
    if (challenge === "http-01" && acme.http01 === undefined) {
      issues.add([...at, "challenge"], "http-01 needs acme.http01.addr (where Gatehouse answers the challenges)")
    }
    if (challenge === "dns-01" && dns01 === undefined) {
      issues.add([...at, "challenge"], "dns-01 needs acme.dns01 (the DNS server to update)")
    }
    for (const [d, domain] of certificate.domains.entries()) {
      if (domain.startsWith("*.") && challenge !== "dns-01") {
        issues.add([...at, "domains", d], `a wildcard name (${domain}) can only be validated with dns-01`)
      }
      const zone = dns01?.zone.toLowerCase().replace(/\.$/, "")
      const name = domain.toLowerCase().replace(/^\*\./, "")
      if (challenge === "dns-01" && zone !== undefined && name !== zone && !name.endsWith(`.${zone}`)) {
        issues.add([...at, "domains", d], `${domain} is not in the dns01 zone ${zone}`)
      }
    }
  }
}

/**
 * The sign-in rules across keys: user names unique, and an OpenID provider that admits someone in particular.
 * Two users of one name would each decide part of a sign-in: one's password, the other's role. A provider without
 * `allowed_users` or `allowed_groups` would admit every account it signs in, at a public provider anyone's; that
 * is only meant when said (`allow_any_user: true`), and then the lists would be ignored, so they are refused.
 */
const checkAuthRules = (file: ConfigFile, issues: IssueCollector): void => {
  const names = new Map<string, number>()
  for (const [index, user] of (file.auth?.users ?? []).entries()) {
    const first = names.get(user.name)
    if (first !== undefined) {
      issues.add(["auth", "users", index, "name"], `duplicate name "${user.name}" (auth.users.${first} has it)`)
    } else names.set(user.name, index)
  }
  const oidc = file.auth?.oidc
  if (oidc === undefined) return
  oneSecret(issues, ["auth", "oidc"], "client_secret", oidc.client_secret, oidc.client_secret_file)
  const listed = (oidc.allowed_users?.length ?? 0) > 0 || (oidc.allowed_groups?.length ?? 0) > 0
  if (oidc.allow_any_user === true && listed) {
    issues.add(
      ["auth", "oidc", "allow_any_user"],
      "allow_any_user: true admits every account the provider signs in, whatever allowed_users and allowed_groups " +
        "say: leave out the lists, or allow_any_user"
    )
  }
  if (oidc.allow_any_user !== true && !listed) {
    issues.add(
      ["auth", "oidc"],
      "say who may sign in: set allowed_users (verified emails or subject ids, sub) or allowed_groups, or " +
        "allow_any_user: true to admit every account the provider signs in"
    )
  }
}

/**
 * A body budget smaller than `http.max_body` would refuse a body the server accepts every time, while telling the
 * client to retry shortly.
 */
const checkBodyBudgets = (file: ConfigFile, issues: IssueCollector): void => {
  const maxBody = file.http?.max_body ?? ConfigDefaults.maxBodyBytes
  for (const key of ["bodies_in_flight", "bodies_in_flight_per_client"] as const) {
    const budget = file.http?.limits?.[key]
    if (budget !== undefined && budget < maxBody) {
      issues.add(
        ["http", "limits", key],
        `${bytesInUnits(budget)} cannot hold one body of http.max_body (${bytesInUnits(maxBody)}): set at least that`
      )
    }
  }
}

/**
 * The rules across keys that the schema cannot express: no non-loopback listener without authentication, no
 * plaintext gRPC off loopback unless `grpc.insecure: true`, sign-in that is unambiguous and admits someone in
 * particular, and Proxmox credentials that are complete and unambiguous (a token with its secret, or a user with a
 * password).
 */
export const checkConfigRules = (file: ConfigFile, issues: IssueCollector): void => {
  checkAcmeRules(file, issues)
  checkAuthRules(file, issues)
  checkBodyBudgets(file, issues)
  const addresses = listenAddresses(file)
  if (!isAuthConfigured(file)) {
    for (const section of ["http", "grpc"] as const) {
      const address = addresses[section]
      if (isLoopbackHost(address.host)) continue
      issues.add(
        [section, "addr"],
        `${formatListenAddress(address)} is not a loopback address, but no authentication is configured ` +
          "(auth.users or auth.oidc): bind to 127.0.0.1 or configure authentication first"
      )
    }
  }
  const refusal = grpcPlaintextRefusal({
    address: formatListenAddress(addresses.grpc),
    host: addresses.grpc.host,
    tls: file.grpc?.tls !== undefined,
    insecure: file.grpc?.insecure === true
  })
  if (refusal !== undefined) issues.add(["grpc", "addr"], refusal)
  for (const [index, cluster] of (file.hypervisor?.clusters ?? []).entries()) {
    const at = ["hypervisor", "clusters", index]
    const token = cluster.token_id !== undefined
    const user = cluster.username !== undefined
    if (!token && !user) issues.add(at, "set token_id + secret, or username + password")
    if (token && user) issues.add([...at, "username"], "set token_id + secret or username + password, not both")
    if (token && cluster.secret === undefined && cluster.secret_file === undefined) {
      issues.add([...at, "token_id"], "token_id needs secret or secret_file")
    }
    // PVE appends `realm` to the user name whenever it is given: `root@pam` with `realm: pam` logs in as
    // `root@pam@pam`, which fails.
    if (user && cluster.realm !== undefined && cluster.username!.includes("@")) {
      issues.add([...at, "realm"], "the username already names its realm (user@realm): leave realm out")
    }
    if (user && cluster.password === undefined && cluster.password_file === undefined) {
      issues.add([...at, "username"], "username needs password or password_file")
    }
    oneSecret(issues, at, "secret", cluster.secret, cluster.secret_file)
    oneSecret(issues, at, "password", cluster.password, cluster.password_file)
  }
}
