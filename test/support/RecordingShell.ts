import { SshFailed } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Stream } from "effect"
import { NodeShell, type SshTarget } from "../../packages/core/src/hypervisor/NodeShell.js"

/** A command the fake shell was asked to run. */
export interface RecordedCommand {
  readonly target: SshTarget
  readonly argv: ReadonlyArray<string>
}

/**
 * A NodeShell that runs nothing: it records each request (so a test can prove none was made) and answers with the
 * given lines, or fails as an unreachable node would.
 */
export const recordingShell = (
  answer: (argv: ReadonlyArray<string>) => ReadonlyArray<string> | undefined = () => undefined
) => {
  const calls: Array<RecordedCommand> = []
  const layer = Layer.succeed(NodeShell)(
    NodeShell.of({
      connect: (target) =>
        Effect.sync(() => {
          calls.push({ target, argv: [] })
        }),
      run: (target, argv) =>
        Effect.sync(() => {
          calls.push({ target, argv })
          const lines = answer(argv)
          return { exitCode: lines === undefined ? 1 : 0, stdout: (lines ?? []).join("\n"), stderr: "" }
        }),
      lines: (target, argv) =>
        Stream.suspend(() => {
          calls.push({ target, argv })
          const lines = answer(argv)
          return lines === undefined
            ? Stream.fail(new SshFailed({ node: target.node, detail: "no such command in the fake shell" }))
            : Stream.fromIterable(lines)
        }),
      stats: Effect.sync(() => ({ connectionsOpened: 0, connectionsOpen: 0, channelsOpen: 0 }))
    })
  )
  return { calls, layer }
}
