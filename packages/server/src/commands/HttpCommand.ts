import { GatehouseClient } from "@gatehouse-edge/client"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { connectHttp, reportHttpErrors } from "./HttpConnection.js"

/** Runs `use` with the typed HTTP client; any failure is one line on stderr and exit code 1. */
export const withClient = <A, E>(
  flags: Parameters<typeof connectHttp>[0],
  use: (client: GatehouseClient["Service"]) => Effect.Effect<A, E>
) =>
  Effect.gen(function* () {
    const { layer, baseUrl } = yield* connectHttp(flags)
    return yield* reportHttpErrors(baseUrl, Effect.flatMap(GatehouseClient, use).pipe(Effect.provide(layer)))
  })

/** Prints each line of a follow until it ends or Ctrl-C, which interrupts the stream and closes the socket. */
export const printLines = <E>(lines: Stream.Stream<string, E>) => Stream.runForEach(lines, (line) => Console.log(line))
