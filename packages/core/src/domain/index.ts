/**
 * `@gatehouse-edge/core/domain`: the domain schemas, typed errors and events. They live in
 * `@gatehouse-edge/contract` (which clients install without any server dependency); this entry re-exports them, so
 * a class imported from either is the same class.
 */
export * from "@gatehouse-edge/contract/domain"
