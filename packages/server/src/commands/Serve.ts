import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"

// The server's modules (every core service, both transports, the protos) load when `serve` runs, from
// ServeProgram.ts: the other commands, `--help` and `--version` start without them (bench/README.md, "CLI start-up").
const loadProgram = () => Effect.promise(() => import("./ServeProgram.js"))

/** `gatehouse serve`: runs the server until SIGINT/SIGTERM, then shuts down gracefully. */
export const serveCommand = Command.make(
  "serve",
  {
    config: Flag.String("config").pipe(
      Flag.withDescription("Config file (default ./gatehouse.yml if present)"),
      Flag.optional
    ),
    http: Flag.String("http").pipe(
      Flag.withDescription("HTTP listen address host:port (default 127.0.0.1:8888)"),
      Flag.optional
    ),
    grpc: Flag.String("grpc").pipe(
      Flag.withDescription("gRPC listen address host:port (default 127.0.0.1:50443)"),
      Flag.optional
    ),
    data: Flag.String("data").pipe(Flag.withDescription("Data directory (default ./data)"), Flag.optional),
    strict: Flag.Boolean("strict").pipe(
      Flag.withDescription(
        "Refuse to start when a route file is invalid (by default the server starts with the valid files " +
          "and reports the invalid ones as config/error events)"
      ),
      Flag.withDefault(false)
    )
  },
  Effect.fn("gatehouse.serve")(function* (flags) {
    const { serve } = yield* loadProgram()
    return yield* serve(flags)
  })
).pipe(Command.withDescription("Run the Gatehouse server"))
