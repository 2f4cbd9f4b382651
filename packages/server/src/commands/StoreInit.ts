import * as fs from "node:fs/promises"
import { StoreDamaged, StoreLive, StoreNotGatehouse, StoreOpenFailed, storeTroubleOf } from "@gatehouse-edge/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import { databasePath } from "../CoreLayer.js"
import { failWith, readServerConfig } from "./ServerConfig.js"
import { describeStartupFailure } from "./StartupFailure.js"

// Opened, migrated and every page checked: `store init` is also how an operator checks a store.
const openStore = (filename: string) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(StoreLive.layer({ filename })), (context) =>
      Effect.provideContext(StoreLive.checkIntact(filename), context)
    )
  )

// What --force may move aside: a file that is no store, or a store too damaged to use (found by the check, or by
// opening it).
const isReplaceable = (error: unknown) =>
  error instanceof StoreNotGatehouse ||
  error instanceof StoreDamaged ||
  (error instanceof StoreOpenFailed && storeTroubleOf(error.cause)?.kind === "damaged")

// The file and what SQLite keeps next to it, moved together so nothing of the old database is lost.
const moveAside = Effect.fnUntraced(function* (filename: string) {
  const stamp = DateTime.formatIso(DateTime.makeUnsafe(yield* Clock.currentTimeMillis)).replace(/[:.]/g, "-")
  const backup = `${filename}.bak-${stamp}`
  for (const suffix of ["", "-wal", "-shm"]) {
    yield* Effect.tryPromise(() => fs.rename(`${filename}${suffix}`, `${backup}${suffix}`)).pipe(
      Effect.catch((error) =>
        (error.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT" ? Effect.void : Effect.fail(error)
      )
    )
  }
  return backup
})

/** The flags of `gatehouse store init`. */
export interface StoreInitFlags {
  readonly config: Option.Option<string>
  readonly data: Option.Option<string>
  readonly force: boolean
}

/** What `gatehouse store init` runs (its own module: see `Store.ts`). */
export const initStore = Effect.fnUntraced(function* (flags: StoreInitFlags) {
  const { config } = yield* readServerConfig(flags)
  const filename = databasePath(config)
  const report = (cause: Parameters<typeof describeStartupFailure>[0]) =>
    failWith([`gatehouse: ${describeStartupFailure(cause, "") ?? "cannot open the store"}`])
  const opened = yield* Effect.exit(openStore(filename))
  if (opened._tag === "Success") return yield* Console.log(`the store ${filename} is ready`)
  const replaceable = opened.cause.reasons.some((reason) => Cause.isFailReason(reason) && isReplaceable(reason.error))
  if (!replaceable || !flags.force) return yield* report(opened.cause)
  const backup = yield* moveAside(filename).pipe(
    Effect.catch((error) => failWith([`gatehouse: cannot move ${filename} aside: ${String(error.cause ?? error)}`]))
  )
  yield* openStore(filename).pipe(Effect.catchCause(report))
  yield* Console.log(`moved ${filename} to ${backup} and created a new store`)
})
