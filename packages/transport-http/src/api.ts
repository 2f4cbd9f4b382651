/**
 * `@gatehouse-edge/transport-http/api`: the HTTP contract, which lives in `@gatehouse-edge/contract/api` (clients
 * install it without any server dependency). Re-exported here, so its classes are the ones the server uses.
 */
export * from "@gatehouse-edge/contract/api"
