import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ApiKeyRepository, StoreLive } from "@gatehouse-edge/core"
import { Cause, Effect, Exit, Layer } from "effect"
import { requireTool } from "../../../test/support/e2e.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { ensureAdminKey } from "../src/AdminKey.js"

const dir = tempDir("gatehouse-admin-key-")
const store = ApiKeyRepository.layer.pipe(Layer.provideMerge(StoreLive.layerMemory))

const prlimit = requireTool("prlimit")

/**
 * While the scope is open, every write of this process (the test's own fork) that would make a file larger than
 * `bytes` fails with EFBIG, as writes to a full disk fail with ENOSPC: creating a file still works, writing to it
 * does not. A real limit of the kernel (RLIMIT_FSIZE, lowered and restored without privileges); Node ignores the
 * SIGXFSZ that comes with it.
 */
const filesLimitedTo = (bytes: number) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pid = String(process.pid)
      const soft = execFileSync("prlimit", ["--pid", pid, "--fsize", "--raw", "--noheadings", "--output=SOFT"])
        .toString()
        .trim()
      execFileSync("prlimit", ["--pid", pid, `--fsize=${bytes}:`])
      return { pid, soft }
    }),
    ({ pid, soft }) => Effect.sync(() => execFileSync("prlimit", ["--pid", pid, `--fsize=${soft}:`]))
  )

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

  it.live.skipIf(prlimit.skip)(
    "a first start that cannot write admin.key (a full disk) leaves no file behind: the next start makes one",
    () =>
      Effect.gen(function* () {
        const data = path.join(yield* dir, "data")
        fs.mkdirSync(data)
        const exit = yield* Effect.exit(Effect.scoped(Effect.andThen(filesLimitedTo(0), ensureAdminKey(data))))
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit))
          assert.match(Cause.pretty(exit.cause), /cannot write .*admin\.key \(EFBIG\): the admin key was not changed/)
        // Neither an empty admin.key (which the next start would refuse) nor the file the key was written to first.
        assert.deepStrictEqual(fs.readdirSync(data), [])
        assert.deepStrictEqual(yield* activeAdminKeys, [])

        yield* ensureAdminKey(data)
        const key = fs.readFileSync(path.join(data, "admin.key"), "utf8").trim()
        const [stored] = yield* activeAdminKeys
        assert.isTrue(key.startsWith(`gh_${stored!.prefix}_`))
        assert.deepStrictEqual(fs.readdirSync(data), ["admin.key"])
      }).pipe(Effect.provide(store), Effect.scoped)
  )
})
