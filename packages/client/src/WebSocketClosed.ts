import * as Schema from "effect/Schema"

/**
 * A stream's WebSocket closed other than normally (1000): 1008 policy (e.g. a consumer too slow for the server),
 * 1011 upstream failure, 1001 server shutdown, 1006 connection lost without a close frame, ...
 */
export class WebSocketClosed extends Schema.TaggedError<WebSocketClosed>()("WebSocketClosed", {
  code: Schema.Int,
  reason: Schema.String
}) {
  override get message(): string {
    return `WebSocket closed with ${this.code}${this.reason === "" ? "" : `: ${this.reason}`}`
  }
}
