import { parsePrefix, prefixContains } from "@gatehouse-edge/core"
import { clientKeyOf } from "@gatehouse-edge/core/domain"
import type { PolicyRule } from "./GateConfig.js"

/** Who is logging in: the client's address, this host's name, the SSH login name. */
export interface Login {
  readonly src: string
  readonly dst: string
  readonly localUser: string
}

/** A dual-stack socket reports IPv4 peers as `::ffff:a.b.c.d`; requests and policy use the plain IPv4 address. */
export const plainAddress = (address: string): string => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1")

/**
 * The source a client's connections and requests are counted under: its IPv4 address, or its IPv6 /64 (one host
 * is given a /64, and can connect from any address in it).
 */
export const sourceOf = (address: string): string => clientKeyOf(plainAddress(address))

const matches = (rule: PolicyRule, login: Login): boolean =>
  (rule.users === undefined || rule.users.includes(login.localUser)) &&
  (rule.destinations === undefined || rule.destinations.includes(login.dst)) &&
  (rule.sources === undefined || rule.sources.some((prefix) => prefixContains(parsePrefix(prefix)!, login.src)))

/** The first rule that matches the login; undefined (the login is refused) when none does. */
export const ruleFor = (policy: ReadonlyArray<PolicyRule>, login: Login): PolicyRule | undefined =>
  policy.find((rule) => matches(rule, login))
