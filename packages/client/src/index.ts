/**
 * @gatehouse-edge/client — the typed Gatehouse SDK, derived from the HTTP contract: an Effect service
 * ({@link GatehouseClient}) with the WebSocket streams as `Stream`s, and a promise facade
 * ({@link createGatehouseClient}) with the streams as `AsyncIterable`s. Loads no server code.
 */
// The domain schemas, types and typed errors (`RouteNotFound`, `ValidationFailed`, ...), so one import suffices.
export * from "@gatehouse-edge/contract/domain"
export type * from "./ApiCalls.js"
export type * from "./FileVersions.js"
export * from "./GatehouseClient.js"
export type * from "./GatehouseStreams.js"
export * from "./PromiseClient.js"
export {
  type Disconnected,
  type Reconnected,
  type ReconnectOptions,
  type Resumption,
  reconnectSchedule,
  type WatchOptions
} from "./Reconnect.js"
export { isRetryable } from "./RetryableFailure.js"
export * from "./WebSocketClosed.js"
