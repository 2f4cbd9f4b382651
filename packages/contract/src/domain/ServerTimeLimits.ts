/**
 * How long the server lets its slow work take before it answers with a failure. They live in the contract because
 * clients must outwait them: a client that gives up first turns a slow success into a failure that did not happen
 * (the server goes on and finishes the action). The CLI's deadline for such calls is made from them.
 */

/** An LXC start, stop or restart: Proxmox's task and the container's state, awaited (HypervisorLive). */
export const lxcActionTimeoutMs = 120_000

/**
 * One call to a Docker engine (dockerode sets no timeout): an engine that accepts connections and never answers (a
 * stuck daemon, a host that drops packets) would otherwise hold every call that lists its containers, on every
 * engine, for good. Long enough for a stop (`t: 10`, then the kill) to answer.
 */
export const engineCallTimeoutMs = 30_000

/**
 * One listing of an engine's containers. Every lookup, the container list and each re-read of the routes list
 * every engine, and the engine answers a listing from memory: one that has not within this is stuck, and waiting
 * longer would hold up the answers of the engines that did (the server's start among them).
 */
export const engineListTimeoutMs = 5_000

/** A request's whole arrival, headers and body (Node's `requestTimeout` on the HTTP server). */
export const requestArrivalTimeoutMs = 90_000

/** One step of a file operation (the write lock, a read, a write, a validation) in the files service. */
export const fileStepTimeoutMs = 10_000
