import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import {
  ClusterCacheState,
  Guest,
  GuestNotFound,
  GuestNotRunning,
  HypervisorNode,
  HypervisorNodeNotFound,
  HypervisorNotConfigured,
  InvalidArgument,
  LxcAction,
  LxcActionResult,
  NodeStats,
  ProxmoxAccessDenied,
  ProxmoxCertificateMismatch,
  ProxmoxCertificateUntrusted,
  ProxmoxFailed,
  ProxmoxTaskFailed,
  ProxmoxTaskIneffective,
  ProxmoxTimedOut,
  ProxmoxUnreachable,
  SshFailed,
  SshHostKeyMismatch,
  SshNotConfigured,
  SshTimedOut,
  SshUnreachable,
  toWireError,
  UpgradeRequired
} from "../domain/index.js"
import { Limit, NodeParam, VmidParam } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

const proxmoxErrors = [
  toWireError(HypervisorNotConfigured),
  toWireError(ProxmoxUnreachable),
  toWireError(ProxmoxFailed),
  toWireError(ProxmoxAccessDenied),
  toWireError(ProxmoxCertificateMismatch),
  toWireError(ProxmoxCertificateUntrusted),
  toWireError(ProxmoxTimedOut)
]
// A node is looked up in the cache; a cluster that never answered gives its Proxmox error instead of a 404.
const lookupErrors = [...proxmoxErrors, toWireError(HypervisorNodeNotFound), toWireError(GuestNotFound)]
// Refusals of a journal or tail stream, all answered before the upgrade.
const commandErrors = [
  toWireError(UpgradeRequired),
  toWireError(InvalidArgument),
  ...lookupErrors,
  toWireError(GuestNotRunning),
  toWireError(SshNotConfigured),
  toWireError(SshUnreachable),
  toWireError(SshHostKeyMismatch),
  toWireError(SshFailed)
]
// A journal's also: a container's is first checked for journald, and that check is bounded.
const journalErrors = [...commandErrors, toWireError(SshTimedOut)]

/** `service`, repeatable: systemd units to filter the journal by (each a safe argument, SPEC §5.4). */
const Services = Schema.optionalKey(Schema.Array(Schema.String))

/** The stats line of a guest, `text/plain`. */
export const GuestStatsText = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain" })).annotate({
  description:
    "`STATUS|CPU%|MEM USAGE/LIMIT|MEM%|NET I/O|BLOCK I/O`, e.g. `running|31.1%|9.6GiB/20GiB|48.87%|4.7GiB/3.3GiB|25GiB/36GiB`"
})

const journalDescription =
  "WebSocket only (426 without the upgrade): the last `limit` lines (1–1000, default 100), then each new line, one " +
  "text frame per line, from `journalctl -f` run over SSH on the node (`pct exec <vmid> -- journalctl` in a " +
  "container; `tail -F /var/log/messages` in a container without journald). Every check (parameters, dangerous " +
  "characters, node, container, its status) is done before the upgrade. A stopped container: 409. A container " +
  "whose check for journald does not finish within 10 s (a frozen container, a hung mount): 504. Closing the " +
  "socket ends the remote command."

/** Proxmox VE nodes and LXC containers (SPEC §5). */
export class HypervisorApi extends HttpApiGroup.make("hypervisor")
  .add(
    HttpApiEndpoint.get("nodes", "/hypervisor/nodes", {
      success: Schema.Array(HypervisorNode),
      error: proxmoxErrors
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "List nodes",
          description: "Every node of every cluster, from the resource cache (refreshed every 3 s)."
        })
      ),
    HttpApiEndpoint.get("clusters", "/hypervisor/clusters", {
      success: Schema.Array(ClusterCacheState),
      error: toWireError(HypervisorNotConfigured)
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "List clusters",
          description:
            "Each configured cluster and whether its resource cache is fresh: `stale` when the last refresh failed " +
            "(`error` says why; nodes and guests then show the last good data, from `refreshed_at`) or none has " +
            "succeeded yet. Answers while a cluster is down: this is where to see that it is."
        })
      ),
    HttpApiEndpoint.get("guests", "/hypervisor/guests", {
      success: Schema.Array(Guest),
      error: proxmoxErrors
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "List guests",
          description:
            "Every LXC container and VM of every cluster, with status, usage and addresses, from the resource cache."
        })
      ),
    HttpApiEndpoint.get("nodeStats", "/hypervisor/stats/:node", {
      params: { node: NodeParam },
      success: NodeStats,
      error: [...proxmoxErrors, toWireError(HypervisorNodeNotFound)]
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Node stats",
          description:
            "From `/nodes/{node}/status`. WebSocket on the same path: the stats every second (one Proxmox call per second however many watch)."
        })
      ),
    HttpApiEndpoint.get("guestStats", "/hypervisor/stats/:node/:vmid", {
      params: { node: NodeParam, vmid: VmidParam },
      success: GuestStatsText,
      error: lookupErrors
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Guest stats line",
          description:
            "`text/plain`, from the resource cache: sizes in binary units, CPU% one decimal, MEM% two. WebSocket on " +
            "the same path: the line every second as a text frame (no Proxmox call per watcher)."
        })
      ),
    HttpApiEndpoint.get("journal", "/hypervisor/journalctl", {
      query: {
        node: NodeParam,
        vmid: Schema.optionalKey(VmidParam),
        service: Services,
        limit: Schema.optionalKey(Limit)
      },
      error: journalErrors
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(OpenApi.annotations({ summary: "Follow a journal (WebSocket)", description: journalDescription })),
    HttpApiEndpoint.get("nodeJournal", "/hypervisor/journalctl/:node", {
      params: { node: NodeParam },
      query: { service: Services, limit: Schema.optionalKey(Limit) },
      error: journalErrors
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({ summary: "Follow a node's journal (WebSocket)", description: journalDescription })
      ),
    HttpApiEndpoint.get("guestJournal", "/hypervisor/journalctl/:node/:vmid", {
      params: { node: NodeParam, vmid: VmidParam },
      query: { service: Services, limit: Schema.optionalKey(Limit) },
      error: journalErrors
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({ summary: "Follow a container's journal (WebSocket)", description: journalDescription })
      ),
    HttpApiEndpoint.get("unitJournal", "/hypervisor/journalctl/:node/:vmid/:service", {
      params: { node: NodeParam, vmid: VmidParam, service: Schema.String },
      query: { limit: Schema.optionalKey(Limit) },
      error: journalErrors
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({ summary: "Follow one unit's journal (WebSocket)", description: journalDescription })
      ),
    HttpApiEndpoint.get("tail", "/hypervisor/tail", {
      query: {
        node: NodeParam,
        vmid: Schema.optionalKey(VmidParam),
        file: Schema.Array(Schema.String),
        limit: Schema.optionalKey(Limit)
      },
      error: commandErrors
    })
      .annotateMerge(requires("hypervisor:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Follow files (WebSocket)",
          description:
            "WebSocket only (426 without the upgrade): `tail -n <limit> -F <file>...` over SSH, on the node or in a " +
            "container (`pct exec`); `file` repeatable, absolute paths, each below one of the directories " +
            "`hypervisor.tail_paths` allows (default /var/log; 400 otherwise). Checks as for the journal."
        })
      ),
    HttpApiEndpoint.post("lxc", "/hypervisor/lxc/:node/:vmid/:action", {
      params: { node: NodeParam, vmid: VmidParam, action: LxcAction },
      success: LxcActionResult,
      error: [
        ...lookupErrors,
        toWireError(InvalidArgument),
        toWireError(ProxmoxTaskFailed),
        toWireError(ProxmoxTaskIneffective)
      ]
    })
      .annotateMerge(requires("hypervisor:write"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Start, stop or restart an LXC container",
          description:
            "Waits for Proxmox's task and confirms the final status. Already in the target state: 200 " +
            '`"container already running|stopped"`. Stop is a graceful shutdown, then a stop after its timeout. ' +
            "A task ending `WARNINGS: <n>` succeeded (the message counts the warnings). Task failure: 502 with its " +
            "exit status; a task that ended OK while the container did not reach the state within a few seconds: " +
            "502 naming its status; no result within 2 min: 504. Emits `hypervisor/lxc_*` events."
        })
      )
  )
  .middleware(Authorization) {}
