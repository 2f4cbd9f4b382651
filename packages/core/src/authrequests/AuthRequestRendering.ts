import type { AuthRequest, Node, User } from "@gatehouse-edge/contract/domain"
import type { NodeRecord, RequestRecord, UserRecord } from "./AuthRequestRepository.js"

const iso = (ms: number) => new Date(ms).toISOString()

/** A stored user as the API shows it. */
export const renderUser = (user: UserRecord): User => ({
  id: user.id,
  name: user.name,
  created_at: iso(user.created_at),
  display_name: user.display_name,
  email: user.email
})

/** A stored node, with its user, as the API shows it. */
export const renderNode = (node: NodeRecord, user: UserRecord): Node => ({
  id: node.id,
  machine_key: node.machine_key,
  node_key: node.node_key,
  disco_key: node.disco_key,
  ip_addresses: [node.ipv4, node.ipv6].filter((a): a is string => a !== null),
  name: node.hostname,
  user: renderUser(user),
  ...(node.last_seen === null ? {} : { last_seen: iso(node.last_seen) }),
  ...(node.expiry === null ? {} : { expiry: iso(node.expiry) }),
  created_at: iso(node.created_at),
  register_method: node.register_method,
  given_name: node.given_name,
  online: false,
  tags: JSON.parse(node.tags) as ReadonlyArray<string>
})

/** A stored request, with its user and node where it has them, as the API shows it. */
export const renderRequest = (
  request: RequestRecord,
  users: ReadonlyMap<number, UserRecord>,
  nodes: ReadonlyMap<number, NodeRecord>
): AuthRequest => {
  const user = request.user_id === null ? undefined : users.get(request.user_id)
  const node = request.node_id === null ? undefined : nodes.get(request.node_id)
  const nodeUser = node === undefined ? undefined : users.get(node.user_id)
  return {
    auth_id: request.auth_id,
    kind: request.kind,
    state: request.state,
    created_at: iso(request.created_at),
    expires_at: iso(request.expires_at),
    ...(request.decided_at === null ? {} : { decided_at: iso(request.decided_at) }),
    ...(request.decided_by === null ? {} : { decided_by: request.decided_by }),
    ...(user === undefined ? {} : { user: renderUser(user) }),
    ...(node === undefined || nodeUser === undefined ? {} : { node: renderNode(node, nodeUser) }),
    ...(request.kind === "registration"
      ? {
          registration: {
            machine_key: request.machine_key ?? "",
            node_key: request.node_key ?? "",
            hostname: request.hostname ?? ""
          }
        }
      : {
          ssh_check: { src: request.src ?? "", dst: request.dst ?? "", local_user: request.local_user ?? "" }
        })
  }
}

/** A DNS label made from a host name (lower case, `a-z0-9-`, at most 63), unique among `taken`. */
export const givenNameFor = (hostname: string, taken: ReadonlySet<string>): string => {
  // Trimmed of hyphens after the cut too: a cut that lands on one would leave a label ending in `-`.
  const base =
    hostname
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 56)
      .replace(/-+$/, "") || "node"
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`
    if (!taken.has(candidate)) return candidate
  }
}
