/**
 * @gatehouse-edge/core/postgres — the store on PostgreSQL, for embedders (the server runs on SQLite). A separate
 * entry so that nothing else loads `pg`.
 */

export type { PostgresStoreOptions } from "./store/PostgresStore.js"
export * as PostgresStore from "./store/PostgresStore.js"
