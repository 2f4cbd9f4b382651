/** @gatehouse/core — the Gatehouse domain and services, free of any transport code. */
export * from "./domain/index.js"
