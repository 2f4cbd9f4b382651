/** @gatehouse/core — the Gatehouse domain and services, free of any transport code. */
export * from "./domain/index.js"
export * as EventBus from "./events/EventBus.js"
export * from "./events/Events.js"
export * as SqliteStore from "./store/SqliteStore.js"
export * from "./store/Store.js"
export * from "./store/StoreErrors.js"
