import * as Context from "effect/Context"
import type { Scope } from "../domain/index.js"

/** What an endpoint asks of its caller: a scope, or only to be signed in (`authenticated`, e.g. `/whoami`). */
export type ScopeRequirement = Scope | "authenticated"

/**
 * The scope an endpoint needs, declared in the contract next to the endpoint: the server's authorization checks
 * it, the OpenAPI document shows it (`x-required-scope` and the security requirements' scopes).
 */
export class RequiredScope extends Context.Service<RequiredScope, ScopeRequirement>()(
  "@gatehouse-edge/contract/RequiredScope"
) {}

/** The annotation that declares an endpoint's scope: `.annotateMerge(requires("routes:read"))`. */
export const requires = (scope: ScopeRequirement): Context.Context<RequiredScope> => Context.make(RequiredScope, scope)

/** The scope an endpoint declares, if it declares one. */
export const requiredScopeOf = (annotations: Context.Context<never>): ScopeRequirement | undefined =>
  Context.getOrUndefined(annotations, RequiredScope)
