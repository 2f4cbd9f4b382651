import type { Socket } from "node:net"
import { ClientTooSlow } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import type { WebSocketPolicyShape } from "./WebSocketPolicy.js"

/**
 * Waits until what is queued for a WebSocket client (`bufferedAmount`) is back under `drainAboveBytes`, checked at
 * each `drain` of its connection; a client that takes longer than `drainTimeoutMs` fails with `ClientTooSlow`.
 */
export const awaitDrain = (
  ws: { readonly bufferedAmount: number },
  connection: Pick<Socket, "on" | "off">,
  policy: Pick<WebSocketPolicyShape, "drainAboveBytes" | "drainTimeoutMs">
): Effect.Effect<void, ClientTooSlow> =>
  Effect.callback<void>((resume) => {
    // The listener comes off once drained: the cleanup returned below only runs on interruption, and a slow
    // client waits here once per batch (listeners left behind would pile up on its connection).
    const check = () => {
      if (ws.bufferedAmount > policy.drainAboveBytes) return
      connection.off("drain", check)
      resume(Effect.void)
    }
    connection.on("drain", check)
    check()
    return Effect.sync(() => connection.off("drain", check))
  }).pipe(
    Effect.timeoutOrElse({
      duration: policy.drainTimeoutMs,
      orElse: () => Effect.fail(new ClientTooSlow({ queued_bytes: ws.bufferedAmount }))
    })
  )
