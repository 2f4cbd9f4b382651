import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ApiKeyRepository, StoreLive } from "@gatehouse-edge/core"
import { Cause, Effect, Exit, Layer } from "effect"
import { tempDir } from "../../../test/support/TempDir.js"
import { ensureAdminKey } from "../src/AdminKey.js"

const dir = tempDir("gatehouse-admin-key-")
const store = ApiKeyRepository.layer.pipe(Layer.provideMerge(StoreLive.layerMemory))

const activeAdminKeys = Effect.map(
  Effect.flatMap(ApiKeyRepository, (keys) => keys.list),
  (all) => all.filter((key) => key.name === "admin" && key.revoked_at === null)
)

describe("the admin key", () => {
  it.live("is generated on first start: in the store, and in <data>/admin.key with mode 0600", () =>
    Effect.gen(function* () {
      const data = path.join(yield* dir, "data")
      yield* ensureAdminKey(data)
      const file = path.join(data, "admin.key")
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      const key = fs.readFileSync(file, "utf8").trim()
      const [stored] = yield* activeAdminKeys
      assert.isTrue(key.startsWith(`gh_${stored!.prefix}_`))
      // The next start reads it back and changes nothing.
      yield* ensureAdminKey(data)
      assert.deepStrictEqual(
        (yield* activeAdminKeys).map((k) => k.prefix),
        [stored!.prefix]
      )
    }).pipe(Effect.provide(store), Effect.scoped)
  )

  it.live("an admin.key that cannot be read stops the start and revokes nothing", () =>
    Effect.gen(function* () {
      const data = path.join(yield* dir, "data")
      yield* ensureAdminKey(data)
      const before = yield* activeAdminKeys
      const file = path.join(data, "admin.key")
      fs.rmSync(file)
      fs.mkdirSync(file) // reading it fails with EISDIR, as an unreadable file fails with EACCES
      const exit = yield* Effect.exit(ensureAdminKey(data))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) assert.match(Cause.pretty(exit.cause), /cannot read .*admin\.key \(EISDIR\)/)
      assert.deepStrictEqual(yield* activeAdminKeys, before)
    }).pipe(Effect.provide(store), Effect.scoped)
  )
})
