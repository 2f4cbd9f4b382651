import type { SshFailed, SshHostKeyMismatch, SshUnreachable } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Stream from "effect/Stream"

/** Where and as whom to run commands on one Proxmox VE node. */
export interface SshTarget {
  /** The node's name, used in errors and as the pool key together with host, port and user. */
  readonly node: string
  readonly host: string
  readonly port: number
  readonly user: string
  /** The private key (PEM/OpenSSH text, already read from `private_key`). */
  readonly privateKey: Redacted.Redacted<string>
  /**
   * The pinned host key: a public key line (`ssh-ed25519 AAAA… [comment]`) or an OpenSSH fingerprint
   * (`SHA256:<base64>`). Connecting to a node without one is refused: a command never runs on an unverified host.
   */
  readonly hostKey: string
}

/** What running a command over SSH can fail with. */
export type SshError = SshUnreachable | SshHostKeyMismatch | SshFailed

/** A finished command's result. */
export interface CommandResult {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Counters for tests and benchmarks: how many connections were opened in total and how many are open now, and how
 * many command channels are open. A channel counts until the node confirms its close, which OpenSSH does once the
 * remote command has exited.
 */
export interface ShellStats {
  readonly connectionsOpened: number
  readonly connectionsOpen: number
  readonly channelsOpen: number
}

/**
 * Commands on Proxmox VE nodes over SSH. `argv` is always a list of words: each is quoted on its own, never
 * interpolated into a command line, so no word can be read as shell syntax. One pooled connection per target
 * carries every channel (OpenSSH's default `MaxSessions 10` caps the channels one connection may carry at once;
 * more are refused with `SshFailed`). A closed channel counts against that until the node confirms its close, as
 * sshd counts its session until the command has exited. Callers check dangerous input (SPEC §5.4) before calling:
 * this service quotes, it does not judge.
 */
export class NodeShell extends Context.Service<
  NodeShell,
  {
    /**
     * Opens (or reuses) the pooled connection to the target without running anything: a caller checks that the
     * node is reachable and is who its pin says before it commits to a stream (e.g. before a WebSocket upgrade).
     * The connection stays pooled for the next command.
     */
    readonly connect: (target: SshTarget) => Effect.Effect<void, SshError>
    /**
     * Runs `argv` to completion and collects its output: at most 1 MiB of each of stdout and stderr is kept (the
     * rest is read and dropped; `NodeShellLive.layerWith({ maxOutputBytes })` changes the bound). A non-zero exit
     * is a result, not an error; a command killed by a signal or a dropped connection fails with `SshFailed`.
     */
    readonly run: (target: SshTarget, argv: ReadonlyArray<string>) => Effect.Effect<CommandResult, SshError>
    /**
     * Runs `argv` and streams its standard output line by line (a final line without a newline included). Ends
     * when the command exits 0; a non-zero exit fails with `SshFailed` naming the status and the first line of its
     * error output; a dropped connection fails with `SshFailed`. Interrupting the stream closes the channel (no pty,
     * no signal: sshd refuses signals for root logins), which ends a remote `tail -F` / `journalctl -f` at once
     * (busybox's tail only at its next write). Output is UTF-8, decoded across chunk boundaries; a `\r` before the
     * newline is dropped. Bounded: a slow consumer pauses the channel (SSH flow control then holds the remote
     * command back) instead of buffering; a line longer than 64 Ki characters is delivered in pieces of that size.
     */
    readonly lines: (target: SshTarget, argv: ReadonlyArray<string>) => Stream.Stream<string, SshError>
    readonly stats: Effect.Effect<ShellStats>
  }
>()("@gatehouse-edge/core/NodeShell") {}
