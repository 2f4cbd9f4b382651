import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type ApiKeyRecord, apiKeyRecord, generateApiKey } from "@gatehouse-edge/core"
import { Console, Effect } from "effect"

/** The admin API key file inside the data directory. */
export const adminKeyPath = (dataDir: string) => path.join(dataDir, "admin.key")

/**
 * The admin API key: generated on first start, printed once, and kept in `<data>/admin.key` (mode 0600) so
 * scripts can read it. Later starts read it back and do not print it again.
 */
export const ensureAdminKey = (dataDir: string): Effect.Effect<ApiKeyRecord> =>
  Effect.gen(function* () {
    const file = adminKeyPath(dataDir)
    const existing = yield* Effect.tryPromise(() => fs.readFile(file, "utf8")).pipe(
      Effect.map((text) => text.trim()),
      Effect.catch(() => Effect.succeed(undefined))
    )
    if (existing !== undefined) {
      return yield* Effect.try({
        try: () => apiKeyRecord("admin", existing),
        catch: () => new Error(`${file} does not hold a valid API key: delete it to generate a new one`)
      }).pipe(Effect.orDie)
    }
    const { key, record } = generateApiKey("admin")
    yield* Effect.tryPromise(() => fs.mkdir(dataDir, { recursive: true })).pipe(
      Effect.andThen(Effect.tryPromise(() => fs.writeFile(file, `${key}\n`, { mode: 0o600, flag: "wx" }))),
      Effect.orDie
    )
    yield* Console.log(
      [
        "",
        `  Generated the admin API key (shown once; also saved to ${file}, mode 0600):`,
        "",
        `    ${key}`,
        "",
        "  Use it as: Authorization: Bearer <key>",
        ""
      ].join("\n")
    )
    return record
  })
