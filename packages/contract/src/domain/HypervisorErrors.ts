import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"

/** No Proxmox VE cluster is configured (503 / UNAVAILABLE). */
export class HypervisorNotConfigured extends ApiError<HypervisorNotConfigured>()("HypervisorNotConfigured", {
  code: "unavailable",
  fields: {},
  message: () => "no Proxmox VE cluster is configured (hypervisor.clusters)"
}) {}

/** No configured cluster has a node of this name (404 / NOT_FOUND). */
export class HypervisorNodeNotFound extends ApiError<HypervisorNodeNotFound>()("HypervisorNodeNotFound", {
  code: "not_found",
  fields: { node: Schema.String },
  message: (e) => `node "${e.node}" not found`
}) {}

/** The node has no guest with this id (404 / NOT_FOUND). */
export class GuestNotFound extends ApiError<GuestNotFound>()("GuestNotFound", {
  code: "not_found",
  fields: { node: Schema.String, vmid: Schema.Int },
  message: (e) => `container ${e.vmid} not found on node "${e.node}"`
}) {}

/** A command inside a container that is not running (409 / FAILED_PRECONDITION). */
export class GuestNotRunning extends ApiError<GuestNotRunning>()("GuestNotRunning", {
  code: "failed_precondition",
  fields: { node: Schema.String, vmid: Schema.Int, status: Schema.String },
  message: (e) => `container ${e.vmid} is not running (status: ${e.status})`
}) {}

/**
 * The cluster's API did not answer (connection refused, reset, DNS, TLS handshake), or it answered that it cannot
 * reach the node a call was for (pveproxy's 595/596/597): then `node` names that node (503 / UNAVAILABLE).
 */
export class ProxmoxUnreachable extends ApiError<ProxmoxUnreachable>()("ProxmoxUnreachable", {
  code: "unavailable",
  fields: { cluster: Schema.String, node: Schema.optionalKey(Schema.String), detail: Schema.String },
  message: (e) =>
    e.node === undefined
      ? `Proxmox VE cluster "${e.cluster}" is unreachable: ${e.detail}`
      : `Proxmox VE node "${e.node}" of cluster "${e.cluster}" is unreachable: ${e.detail}`
}) {}

/**
 * The cluster's API answered with an error, or with something that is not its JSON envelope (502 / BAD_GATEWAY).
 * `status` is Proxmox's HTTP status and `detail` its error text (the reason phrase).
 */
export class ProxmoxFailed extends ApiError<ProxmoxFailed>()("ProxmoxFailed", {
  code: "bad_gateway",
  fields: { cluster: Schema.String, status: Schema.Int, detail: Schema.String },
  message: (e) => `Proxmox VE cluster "${e.cluster}" answered ${e.status}: ${e.detail}`
}) {}

/**
 * The cluster refused Gatehouse's own credentials (Proxmox 401) or they lack a privilege (Proxmox 403). A caller of
 * Gatehouse is not at fault, so this is 502, never 401/403 to the caller.
 */
export class ProxmoxAccessDenied extends ApiError<ProxmoxAccessDenied>()("ProxmoxAccessDenied", {
  code: "bad_gateway",
  fields: {
    cluster: Schema.String,
    kind: Schema.Literals(["unauthenticated", "permission_denied"]),
    detail: Schema.String
  },
  message: (e) =>
    e.kind === "unauthenticated"
      ? `Proxmox VE cluster "${e.cluster}" refused Gatehouse's credentials: ${e.detail}`
      : `Proxmox VE cluster "${e.cluster}" denied a privilege to Gatehouse: ${e.detail}`
}) {}

/**
 * The cluster's API presented a TLS certificate other than the one pinned in `tls.fingerprint`; Gatehouse sent nothing
 * (502 / BAD_GATEWAY). A configuration or security problem, not an outage: asking again gives the same answer.
 */
export class ProxmoxCertificateMismatch extends ApiError<ProxmoxCertificateMismatch>()("ProxmoxCertificateMismatch", {
  code: "bad_gateway",
  fields: { cluster: Schema.String, expected: Schema.String, presented: Schema.String },
  message: (e) =>
    `Proxmox VE cluster "${e.cluster}": the SHA-256 fingerprint of its TLS certificate, ${e.presented}, does not ` +
    `match tls.fingerprint (${e.expected}); nothing was sent`
}) {}

/**
 * The cluster's API presented a TLS certificate that fails verification against `tls.ca_file` (or, without one, the
 * system's CAs): signed by another CA, for another name, expired. Gatehouse sent nothing (502 / BAD_GATEWAY). Like a
 * pin mismatch, a configuration or security problem that asking again will not fix.
 */
export class ProxmoxCertificateUntrusted extends ApiError<ProxmoxCertificateUntrusted>()(
  "ProxmoxCertificateUntrusted",
  {
    code: "bad_gateway",
    fields: {
      cluster: Schema.String,
      /** The host the certificate was checked for (the API URL's). */
      host: Schema.String,
      /** What it was checked against: `tls.ca_file` or the system's CAs (neither a CA file nor a pin configured). */
      trusted_by: Schema.Literals(["ca_file", "system"]),
      /** Why it failed, as TLS says it (`unable to verify the first certificate`, `Hostname/IP does not match …`). */
      detail: Schema.String
    },
    message: (e) =>
      `Proxmox VE cluster "${e.cluster}": the TLS certificate of ${e.host} is not trusted by ` +
      `${e.trusted_by === "ca_file" ? "tls.ca_file" : "the system's CAs (no tls.ca_file or tls.fingerprint set)"}: ` +
      `${e.detail}; nothing was sent`
  }
) {}

/** A Proxmox API call or an LXC operation did not finish in time (504 / DEADLINE_EXCEEDED). */
export class ProxmoxTimedOut extends ApiError<ProxmoxTimedOut>()("ProxmoxTimedOut", {
  code: "timeout",
  fields: { cluster: Schema.String, operation: Schema.String, timeout_ms: Schema.Int },
  message: (e) => `Proxmox VE cluster "${e.cluster}": ${e.operation} did not finish within ${e.timeout_ms} ms`
}) {}

/** A Proxmox task (UPID) ended with an error: an exit status other than `OK` or `WARNINGS: <n>` (502 / BAD_GATEWAY). */
export class ProxmoxTaskFailed extends ApiError<ProxmoxTaskFailed>()("ProxmoxTaskFailed", {
  code: "bad_gateway",
  fields: { cluster: Schema.String, upid: Schema.String, exitstatus: Schema.String },
  message: (e) => `Proxmox VE task ${e.upid} failed: ${e.exitstatus}`
}) {}

/**
 * A power task ended `OK` (or with warnings) but the container did not reach the action's state within the time it is
 * given to settle: e.g. a container whose init exits at once after a start (502 / BAD_GATEWAY). `status` is the one
 * Proxmox reported last.
 */
export class ProxmoxTaskIneffective extends ApiError<ProxmoxTaskIneffective>()("ProxmoxTaskIneffective", {
  code: "bad_gateway",
  fields: { cluster: Schema.String, upid: Schema.String, vmid: Schema.Int, status: Schema.String },
  message: (e) => `Proxmox VE task ${e.upid} ended OK but container ${e.vmid} is ${e.status}`
}) {}

/** No SSH access is configured for the node (`hypervisor.clusters[].ssh.nodes`) (503 / UNAVAILABLE). */
export class SshNotConfigured extends ApiError<SshNotConfigured>()("SshNotConfigured", {
  code: "unavailable",
  fields: { node: Schema.String },
  message: (e) => `no SSH access is configured for node "${e.node}" (hypervisor.clusters[].ssh.nodes)`
}) {}

/** The node's SSH server could not be reached (503 / UNAVAILABLE). */
export class SshUnreachable extends ApiError<SshUnreachable>()("SshUnreachable", {
  code: "unavailable",
  fields: { node: Schema.String, detail: Schema.String },
  message: (e) => `SSH to node "${e.node}" failed: ${e.detail}`
}) {}

/** The node presented a host key other than the pinned one; Gatehouse never authenticated (502 / BAD_GATEWAY). */
export class SshHostKeyMismatch extends ApiError<SshHostKeyMismatch>()("SshHostKeyMismatch", {
  code: "bad_gateway",
  fields: { node: Schema.String, expected: Schema.String, presented: Schema.String },
  message: (e) =>
    `SSH host key of node "${e.node}" does not match the pinned key (expected ${e.expected}, got ${e.presented})`
}) {}

/**
 * A check run over SSH on the node did not finish in time: the node or the container it runs in hangs (`pct exec`
 * waiting on a frozen container, a stuck mount) (504 / DEADLINE_EXCEEDED). `operation` says what did not answer.
 */
export class SshTimedOut extends ApiError<SshTimedOut>()("SshTimedOut", {
  code: "timeout",
  fields: { node: Schema.String, operation: Schema.String, timeout_ms: Schema.Int },
  message: (e) => `SSH to node "${e.node}": ${e.operation} did not finish within ${e.timeout_ms} ms`
}) {}

/**
 * SSH to the node failed after connecting: authentication refused, a channel refused, the connection dropped, or a
 * command failed (exit status and the first line of its error output in `detail`) (502 / BAD_GATEWAY).
 */
export class SshFailed extends ApiError<SshFailed>()("SshFailed", {
  code: "bad_gateway",
  fields: { node: Schema.String, detail: Schema.String },
  message: (e) => `SSH to node "${e.node}": ${e.detail}`
}) {}
