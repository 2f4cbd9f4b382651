import { ProxmoxFailed, ProxmoxTimedOut, ProxmoxUnreachable } from "@gatehouse-edge/contract/domain"

// Proxmox's answer for a container that is no more (deleted meanwhile): a 500 like the transient ones.
const gone = /^Configuration file '.*' does not exist$/

/**
 * Whether a failed call to a cluster may well succeed when repeated: no answer (a dropped connection, a node cut off
 * from the cluster, a request timeout) or a 5xx (pveproxy failing to reach the node's daemon, a daemon restarting),
 * except the container being gone. Anything else will be the same answer next time: a 4xx (a bad or unknown UPID,
 * refused credentials or privileges), a certificate refused, a node or guest no longer listed.
 */
export const isTransientFailure = (error: unknown): boolean =>
  error instanceof ProxmoxUnreachable ||
  error instanceof ProxmoxTimedOut ||
  (error instanceof ProxmoxFailed && error.status >= 500 && !gone.test(error.detail))
