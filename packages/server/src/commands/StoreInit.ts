import * as fs from "node:fs/promises"
import { StoreLive, StoreNotGatehouse } from "@gatehouse-edge/core"
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

const openStore = (filename: string) => Effect.scoped(Layer.build(StoreLive.layer({ filename })))

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
  const notAStore = opened.cause.reasons.some(
    (reason) => Cause.isFailReason(reason) && reason.error instanceof StoreNotGatehouse
  )
  if (!notAStore || !flags.force) return yield* report(opened.cause)
  const backup = yield* moveAside(filename).pipe(
    Effect.catch((error) => failWith([`gatehouse: cannot move ${filename} aside: ${String(error.cause ?? error)}`]))
  )
  yield* openStore(filename).pipe(Effect.catchCause(report))
  yield* Console.log(`moved ${filename} to ${backup} and created a new store`)
})
