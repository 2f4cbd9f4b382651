import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"

// Loaded when the command runs (the store and what reports its failures, which names the gRPC server's errors):
// see Serve.ts.
const loadProgram = () => Effect.promise(() => import("./StoreInit.js"))

/**
 * `gatehouse store init`: creates the store, or migrates it and checks every page; with `--force`, replaces a file
 * that is not a store or is damaged.
 */
const initCommand = Command.make(
  "init",
  {
    config: Flag.String("config").pipe(Flag.withDescription("Config file (as for serve)"), Flag.optional),
    data: Flag.String("data").pipe(Flag.withDescription("Data directory (default ./data)"), Flag.optional),
    force: Flag.Boolean("force").pipe(
      Flag.withDescription(
        "When the file where the store belongs is not a Gatehouse store (empty, or another database) or is " +
          "damaged, move it aside to <file>.bak-<time> and create a new store"
      ),
      Flag.withDefault(false)
    )
  },
  Effect.fn("gatehouse.store.init")(function* (flags) {
    const { initStore } = yield* loadProgram()
    return yield* initStore(flags)
  })
).pipe(Command.withDescription("Create the store, or migrate it to this version's schema and check that it is intact"))

/** `gatehouse store ...`: maintenance of the server's store. */
export const storeCommand = Command.make("store").pipe(
  Command.withDescription("Maintain the server's store (SQLite database)"),
  Command.withSubcommands([initCommand])
)
