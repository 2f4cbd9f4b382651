import type { AuthRequest, Node, User } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/** One line per request: id, kind, state, what it is about, who decided. */
export const formatRequest = (r: AuthRequest): string => {
  const about =
    r.kind === "registration"
      ? `host=${r.registration?.hostname ?? ""}`
      : `${r.ssh_check?.local_user ?? ""}@${r.ssh_check?.dst ?? ""} from ${r.ssh_check?.src ?? ""}`
  const decided = r.decided_by === undefined ? `expires ${r.expires_at}` : `by ${r.decided_by} at ${r.decided_at}`
  return `${r.auth_id}  ${r.kind.padEnd(12)}  ${r.state.padEnd(10)}  ${about}  ${decided}`
}

export const formatUser = (u: User): string =>
  `${String(u.id).padStart(4)}  ${u.name}${u.display_name === "" ? "" : ` (${u.display_name})`}${u.email === "" ? "" : ` <${u.email}>`}`

export const formatNode = (n: Node): string =>
  `${String(n.id).padStart(4)}  ${n.given_name}  ${n.ip_addresses.join(", ")}  user=${n.user.name}`

/** Prints a value as JSON or as text lines. */
export const print = <A>(json: boolean, value: A, text: (a: A) => string | ReadonlyArray<string>) =>
  json
    ? Console.log(JSON.stringify(value, null, 2))
    : Effect.forEach([text(value)].flat(), (line) => Console.log(line), { discard: true })
