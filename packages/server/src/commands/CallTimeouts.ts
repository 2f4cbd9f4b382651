import {
  engineCallTimeoutMs,
  engineListTimeoutMs,
  fileStepTimeoutMs,
  lxcActionTimeoutMs,
  requestArrivalTimeoutMs
} from "@gatehouse-edge/contract/domain"

/**
 * How long a command waits for the answer to a call, over HTTP (its status and headers) or gRPC: a server that
 * accepted the call and stopped answering must not hang the command.
 */
export const cliCallTimeoutMs = 30_000

// What the server may still be doing, for good, when a call's answer has not come: the command waits longer.
const answerMarginMs = 30_000

/**
 * The wait for the calls the server itself lets run longer than {@link cliCallTimeoutMs} before it answers, past
 * the longest of its own bounds (the contract's, so a change to one moves this too), so that a slow success is
 * never cut into a failure that did happen (the server goes on and finishes the action):
 * - an LXC start, stop or restart waits for Proxmox's task and the container's state;
 * - a Docker start, stop or restart is a lookup (a listing of each engine) and three engine calls (inspect, the
 *   action, which waits 10 s for a container to stop, inspect);
 * - a file's write or validation sends up to 8 MiB, which the server lets take its request time to arrive, then
 *   waits for the write lock and the write (a step each).
 */
export const longCallTimeoutMs =
  Math.max(
    lxcActionTimeoutMs,
    engineListTimeoutMs + 3 * engineCallTimeoutMs,
    requestArrivalTimeoutMs + 2 * fileStepTimeoutMs
  ) + answerMarginMs
