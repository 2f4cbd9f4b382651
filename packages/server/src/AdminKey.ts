import { randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { ApiKeyRepository, apiKeyPrefix, generateUnusedApiKey, sha256Hex } from "@gatehouse-edge/core"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { adminKeyPath } from "./AdminKeyPath.js"
import { LogAtTerminal } from "./LogAtTerminal.js"

// Only a missing file means "no key yet". Any other failure to read it stops the start: taking it for missing
// would revoke the working admin key, and writing a new file over the old one fails, at every start.
const readKeyFile = (file: string) =>
  Effect.tryPromise({
    try: () => fs.readFile(file, "utf8"),
    catch: (error) => error as NodeJS.ErrnoException
  }).pipe(
    Effect.map((text) => Option.some(text.trim())),
    Effect.catch((error) =>
      error.code === "ENOENT"
        ? Effect.succeedNone
        : Effect.die(
            new Error(
              `cannot read ${file} (${error.code ?? error.message}): let the server read it, or delete it to ` +
                "generate a new admin key"
            )
          )
    )
  )

// The key reaches admin.key whole or not at all: it is written to a file of its own beside it, put on disk (fsync),
// then linked in. A write that fails half-way (a full disk) or a start killed during it leaves no empty admin.key,
// which every later start would refuse. Linking, unlike renaming, fails if admin.key exists meanwhile (another
// start made it): a key in use is never replaced.
const writeKeyFile = (dataDir: string, file: string, key: string) => {
  const temp = path.join(dataDir, `.admin.key.${randomUUID()}.tmp`)
  const attempt = <A>(evaluate: () => Promise<A>) =>
    Effect.tryPromise({ try: evaluate, catch: (error) => error as NodeJS.ErrnoException })
  const writeTemp = Effect.acquireUseRelease(
    attempt(() => fs.open(temp, "wx", 0o600)),
    (handle) =>
      Effect.andThen(
        attempt(() => handle.writeFile(`${key}\n`)),
        attempt(() => handle.sync())
      ),
    (handle) => Effect.promise(() => handle.close())
  )
  return attempt(() => fs.mkdir(dataDir, { recursive: true })).pipe(
    Effect.andThen(writeTemp),
    Effect.andThen(attempt(() => fs.link(temp, file))),
    Effect.ensuring(Effect.ignore(attempt(() => fs.rm(temp, { force: true })))),
    Effect.catch((error) =>
      Effect.die(
        new Error(
          `cannot write ${file} (${error.code ?? error.message}): the admin key was not changed; ` +
            "start again once the file can be written"
        )
      )
    )
  )
}

// The key is shown only to a person at a terminal. A log that is stored or shipped (JSON, or pretty lines piped to
// journald, `docker logs`, an aggregator) would hand the credential to everyone who reads it, and plain lines would
// break its one-JSON-object-a-line shape: it gets one log line naming the file instead.
const showAdminKey = (file: string, key: string) =>
  Effect.gen(function* () {
    return (yield* LogAtTerminal)
      ? yield* Console.log(
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
      : yield* Effect.logInfo(`generated the admin API key: it is in ${file} (mode 0600), not in the log`).pipe(
          Effect.annotateLogs({ admin_key_file: file })
        )
  })

/**
 * The admin API key. It is one of the stored keys (name `admin`, role `admin`), and also kept in
 * `<data>/admin.key` (mode 0600) so scripts can read it: generated on first start, and shown once when the log goes
 * to a terminal (`LogAtTerminal`); on later starts the file is read back and the key made sure to be in the store
 * (keys of stores from before keys were stored are adopted this way). Deleting the file makes the next start revoke
 * the old admin key and issue a new one.
 */
export const ensureAdminKey = (dataDir: string): Effect.Effect<void, never, ApiKeyRepository> =>
  Effect.gen(function* () {
    const keys = yield* ApiKeyRepository
    const file = adminKeyPath(dataDir)
    const now = DateTime.formatIso(DateTime.makeUnsafe(yield* Clock.currentTimeMillis))
    const existing = yield* readKeyFile(file)
    if (Option.isSome(existing)) {
      const prefix = apiKeyPrefix(existing.value)
      if (prefix === undefined) {
        return yield* Effect.die(new Error(`${file} does not hold a valid API key: delete it to generate a new one`))
      }
      if (Option.isSome(yield* keys.findByPrefix(prefix))) return
      yield* keys.revoke("admin", now)
      return yield* keys
        .insert({
          id: randomUUID(),
          name: "admin",
          prefix,
          sha256: sha256Hex(existing.value),
          roles: ["admin"],
          scopes: ["admin"],
          created_at: now,
          expires_at: null,
          last_used_at: null,
          revoked_at: null
        })
        .pipe(Effect.orDie)
    }
    const { key, prefix, sha256 } = yield* generateUnusedApiKey(keys)
    // The file first, on disk (fsync) before the store changes: a start that fails to write it revokes nothing,
    // and one that stops after it adopts the key from the file next time (above).
    yield* writeKeyFile(dataDir, file, key)
    yield* keys.revoke("admin", now)
    yield* keys
      .insert({
        id: randomUUID(),
        name: "admin",
        prefix,
        sha256,
        roles: ["admin"],
        scopes: ["admin"],
        created_at: now,
        expires_at: null,
        last_used_at: null,
        revoked_at: null
      })
      .pipe(Effect.orDie)
    yield* showAdminKey(file, key)
  })
