/**
 * How long a command waits for the answer to a call, over HTTP (its status and headers) or gRPC: a server that
 * accepted the call and stopped answering must not hang the command.
 */
export const cliCallTimeoutMs = 30_000

/**
 * The wait for the calls the server itself lets run longer than {@link cliCallTimeoutMs} before it answers, past
 * the longest of its own bounds, so that a slow success is never cut into a failure that did happen (the server goes
 * on and finishes the action). The bounds are the server's defaults, restated rather than imported: the services
 * that hold them would then load with every command (test/CliModules.test.ts).
 * - An LXC start, stop or restart waits for Proxmox's task and the container's state up to 2 min (HypervisorLive's
 *   `lxc.timeoutMs`).
 * - A Docker start, stop or restart is a lookup and three engine calls (inspect, the action, which waits 10 s for a
 *   container to stop, inspect) of up to 30 s each (DockerEngine's `engineCallTimeoutMs`): 95 s.
 * - A file's write or validation sends up to 8 MiB, which the server lets take 90 s to arrive (NodeServer's
 *   `requestTimeout`), then waits for the write lock and its steps (10 s each, FilesLive).
 */
export const longCallTimeoutMs = 150_000
