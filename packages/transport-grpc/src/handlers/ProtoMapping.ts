import type {
  AuthRequest,
  AuthRequestFilter,
  AuthRequestKind,
  AuthRequestState,
  NewAuthRequest,
  Node,
  User
} from "@gatehouse-edge/core/domain"
import { InvalidArgument } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import type { AuthRequest as ProtoAuthRequest } from "../gen/gatehouse/v1/AuthRequest.js"
import type { AuthRequestKind__Output } from "../gen/gatehouse/v1/AuthRequestKind.js"
import type { AuthRequestState__Output } from "../gen/gatehouse/v1/AuthRequestState.js"
import type { CreateAuthRequestRequest__Output } from "../gen/gatehouse/v1/CreateAuthRequestRequest.js"
import type { Node as ProtoNode } from "../gen/gatehouse/v1/Node.js"
import type { User as ProtoUser } from "../gen/gatehouse/v1/User.js"
import type { Timestamp } from "../gen/google/protobuf/Timestamp.js"

const kinds = {
  registration: "AUTH_REQUEST_KIND_REGISTRATION",
  ssh_check: "AUTH_REQUEST_KIND_SSH_CHECK"
} as const satisfies Record<AuthRequestKind, AuthRequestKind__Output>

const states = {
  pending: "AUTH_REQUEST_STATE_PENDING",
  approved: "AUTH_REQUEST_STATE_APPROVED",
  rejected: "AUTH_REQUEST_STATE_REJECTED",
  expired: "AUTH_REQUEST_STATE_EXPIRED",
  registered: "AUTH_REQUEST_STATE_REGISTERED"
} as const satisfies Record<AuthRequestState, AuthRequestState__Output>

const registerMethods = {
  unspecified: "REGISTER_METHOD_UNSPECIFIED",
  auth_key: "REGISTER_METHOD_AUTH_KEY",
  cli: "REGISTER_METHOD_CLI",
  oidc: "REGISTER_METHOD_OIDC"
} as const

const invert = <K extends string, V extends string>(table: Record<K, V>) =>
  Object.fromEntries(Object.entries(table).map(([k, v]) => [v, k])) as Record<V, K>
const kindOf = invert(kinds)
const stateOf = invert(states)

/** An RFC 3339 time as a `google.protobuf.Timestamp`. */
export const toTimestamp = (iso: string): Timestamp => {
  const ms = Date.parse(iso)
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 }
}

export const toProtoUser = (user: User): ProtoUser => ({
  id: String(user.id),
  name: user.name,
  createdAt: toTimestamp(user.created_at),
  displayName: user.display_name,
  email: user.email
})

export const toProtoNode = (node: Node): ProtoNode => ({
  id: String(node.id),
  machineKey: node.machine_key,
  nodeKey: node.node_key,
  discoKey: node.disco_key,
  ipAddresses: [...node.ip_addresses],
  name: node.name,
  user: toProtoUser(node.user),
  lastSeen: node.last_seen === undefined ? null : toTimestamp(node.last_seen),
  expiry: node.expiry === undefined ? null : toTimestamp(node.expiry),
  createdAt: toTimestamp(node.created_at),
  registerMethod: registerMethods[node.register_method],
  givenName: node.given_name,
  online: node.online,
  tags: [...node.tags]
})

export const toProtoAuthRequest = (request: AuthRequest): ProtoAuthRequest => ({
  authId: request.auth_id,
  kind: kinds[request.kind],
  state: states[request.state],
  createdAt: toTimestamp(request.created_at),
  expiresAt: toTimestamp(request.expires_at),
  decidedAt: request.decided_at === undefined ? null : toTimestamp(request.decided_at),
  decidedBy: request.decided_by ?? "",
  user: request.user === undefined ? null : toProtoUser(request.user),
  node: request.node === undefined ? null : toProtoNode(request.node),
  registration:
    request.registration === undefined
      ? null
      : {
          machineKey: request.registration.machine_key,
          nodeKey: request.registration.node_key,
          hostname: request.registration.hostname
        },
  sshCheck:
    request.ssh_check === undefined
      ? null
      : { src: request.ssh_check.src, dst: request.ssh_check.dst, localUser: request.ssh_check.local_user }
})

const invalid = (field: string, message: string) =>
  new InvalidArgument({ message: `${field}: ${message}`, issues: [{ path: [field], message }] })

/**
 * One field of a filter: its `*_UNSPECIFIED` (or 0) means no filter, a value the enum does not have (a newer
 * client's, or a number) is refused rather than read as no filter, which would answer with everything.
 */
const filterOn = <V>(
  field: string,
  table: Record<string, V>,
  value: unknown
): Effect.Effect<V | undefined, InvalidArgument> => {
  if (value === 0 || (typeof value === "string" && value.endsWith("_UNSPECIFIED"))) return Effect.succeed(undefined)
  const known = typeof value === "string" && Object.hasOwn(table, value) ? table[value] : undefined
  return known === undefined
    ? Effect.fail(invalid(field, `unknown value ${JSON.stringify(value)}`))
    : Effect.succeed(known)
}

/** A `ListAuthRequestsRequest`'s filter: UNSPECIFIED means no filter. */
export const fromProtoFilter = (request: {
  readonly state: AuthRequestState__Output
  readonly kind: AuthRequestKind__Output
}): Effect.Effect<AuthRequestFilter, InvalidArgument> =>
  Effect.all({ state: filterOn("state", stateOf, request.state), kind: filterOn("kind", kindOf, request.kind) })

/** A `CreateAuthRequestRequest` as the core's input: the kind decides which details must be there. */
export const fromProtoCreate = (
  request: CreateAuthRequestRequest__Output
): Effect.Effect<NewAuthRequest, InvalidArgument> => {
  const kind = kindOf[request.kind as keyof typeof kindOf]
  if (kind === "registration") {
    const r = request.registration
    return r === null
      ? Effect.fail(invalid("registration", "a registration request needs registration"))
      : Effect.succeed({
          kind,
          registration: { machine_key: r.machineKey, node_key: r.nodeKey, hostname: r.hostname }
        })
  }
  if (kind === "ssh_check") {
    const s = request.sshCheck
    return s === null
      ? Effect.fail(invalid("ssh_check", "an ssh_check request needs ssh_check"))
      : Effect.succeed({ kind, ssh_check: { src: s.src, dst: s.dst, local_user: s.localUser } })
  }
  return Effect.fail(invalid("kind", "kind must be AUTH_REQUEST_KIND_REGISTRATION or AUTH_REQUEST_KIND_SSH_CHECK"))
}

// The loader decodes 64-bit seconds as strings (`longs: String`); `Number` takes any of its forms.
const isoOf = (timestamp: Timestamp | null | undefined) =>
  timestamp === null || timestamp === undefined
    ? undefined
    : new Date(
        Number(String(timestamp.seconds ?? 0)) * 1000 + Math.floor((timestamp.nanos ?? 0) / 1_000_000)
      ).toISOString()

const registerMethodOf = invert(registerMethods)

/** A received `User` as the domain's (what the HTTP API returns). */
export const fromProtoUser = (user: ProtoUser): User => ({
  id: Number(user.id ?? 0),
  name: user.name ?? "",
  created_at: isoOf(user.createdAt) ?? "",
  display_name: user.displayName ?? "",
  email: user.email ?? ""
})

/** A received `Node` as the domain's. */
export const fromProtoNode = (node: ProtoNode): Node => {
  const lastSeen = isoOf(node.lastSeen)
  const expiry = isoOf(node.expiry)
  return {
    id: Number(node.id ?? 0),
    machine_key: node.machineKey ?? "",
    node_key: node.nodeKey ?? "",
    disco_key: node.discoKey ?? "",
    ip_addresses: node.ipAddresses ?? [],
    name: node.name ?? "",
    user: fromProtoUser(node.user ?? {}),
    ...(lastSeen === undefined ? {} : { last_seen: lastSeen }),
    ...(expiry === undefined ? {} : { expiry }),
    created_at: isoOf(node.createdAt) ?? "",
    register_method: registerMethodOf[node.registerMethod as keyof typeof registerMethodOf] ?? "unspecified",
    given_name: node.givenName ?? "",
    online: node.online ?? false,
    tags: node.tags ?? []
  }
}

/** A received `AuthRequest` as the domain's: the same JSON the HTTP API answers. */
export const fromProtoAuthRequest = (request: ProtoAuthRequest): AuthRequest => {
  const decidedAt = isoOf(request.decidedAt)
  return {
    auth_id: request.authId ?? "",
    kind: kindOf[request.kind as keyof typeof kindOf] ?? "ssh_check",
    state: stateOf[request.state as keyof typeof stateOf] ?? "pending",
    created_at: isoOf(request.createdAt) ?? "",
    expires_at: isoOf(request.expiresAt) ?? "",
    ...(decidedAt === undefined ? {} : { decided_at: decidedAt }),
    ...(request.decidedBy ? { decided_by: request.decidedBy } : {}),
    ...(request.user ? { user: fromProtoUser(request.user) } : {}),
    ...(request.node ? { node: fromProtoNode(request.node) } : {}),
    ...(request.registration
      ? {
          registration: {
            machine_key: request.registration.machineKey ?? "",
            node_key: request.registration.nodeKey ?? "",
            hostname: request.registration.hostname ?? ""
          }
        }
      : {}),
    ...(request.sshCheck
      ? {
          ssh_check: {
            src: request.sshCheck.src ?? "",
            dst: request.sshCheck.dst ?? "",
            local_user: request.sshCheck.localUser ?? ""
          }
        }
      : {})
  }
}

/** The proto enums of a domain filter (absent = UNSPECIFIED = no filter). */
export const toProtoFilter = (filter: AuthRequestFilter) => ({
  state: filter.state === undefined ? "AUTH_REQUEST_STATE_UNSPECIFIED" : states[filter.state],
  kind: filter.kind === undefined ? "AUTH_REQUEST_KIND_UNSPECIFIED" : kinds[filter.kind]
})

/** A domain request-to-create as its proto message. */
export const toProtoCreate = (input: NewAuthRequest) =>
  input.kind === "registration"
    ? {
        kind: kinds.registration,
        registration: {
          machineKey: input.registration.machine_key,
          nodeKey: input.registration.node_key,
          hostname: input.registration.hostname
        }
      }
    : {
        kind: kinds.ssh_check,
        sshCheck: { src: input.ssh_check.src, dst: input.ssh_check.dst, localUser: input.ssh_check.local_user }
      }
