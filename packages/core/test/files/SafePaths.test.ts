import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { UnsafePath } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { isStaleTempFile, writeFileAtomic } from "../../src/files/AtomicWrite.js"
import { FileSystemFailure } from "../../src/files/FileSystemFailure.js"
import { checkFileName, resolveInside } from "../../src/files/SafePaths.js"
import { tempDir } from "../store/TempDir.js"

describe("checkFileName", () => {
  it.effect("accepts every name the route loader loads that is a plain path component", () =>
    Effect.gen(function* () {
      for (const name of ["routes.yml", "a.yaml", "my_app-2.v1.yml", "Extra.YML", "my routes.yml", "Über.Yaml"])
        assert.strictEqual(yield* checkFileName(name), name)
    })
  )

  it.effect("refuses traversal, directories, absolute paths, encodings, hidden and non-YAML names", () =>
    Effect.gen(function* () {
      const refused = [
        "../x.yml",
        "..",
        "a/../../x.yml",
        "dir/x.yml",
        "dir\\x.yml",
        "/etc/passwd",
        "C:\\x.yml",
        "%2e%2e%2fx.yml",
        ".x.yml",
        "x.txt",
        "x.yml\0",
        "",
        "line\nbreak.yml",
        "right\u202eto-left.yml",
        `${"x".repeat(250)}é.yml` // 255 characters, 256 bytes
      ]
      for (const name of refused) {
        const error = yield* Effect.flip(checkFileName(name))
        assert.strictEqual(error._tag, "UnsafePath", name)
        assert.strictEqual(error.parameter, "filename")
      }
    })
  )
})

describe("resolveInside", () => {
  it.live("resolves inside the directory and refuses symlinks that lead out", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const root = path.join(dir, "root")
        fs.mkdirSync(root)
        fs.writeFileSync(path.join(dir, "outside.yml"), "x: 1\n")
        fs.symlinkSync(path.join(dir, "outside.yml"), path.join(root, "out.yml"))
        fs.writeFileSync(path.join(root, "real.yml"), "")
        fs.symlinkSync(path.join(root, "real.yml"), path.join(root, "alias.yml"))
        assert.strictEqual(yield* resolveInside(root, "new.yml"), path.join(fs.realpathSync(root), "new.yml"))
        assert.strictEqual(yield* resolveInside(root, "alias.yml"), path.join(fs.realpathSync(root), "alias.yml"))
        const error = yield* Effect.flip(resolveInside(root, "out.yml"))
        assert.instanceOf(error, UnsafePath)
        assert.strictEqual(error.problem, "resolves outside its directory")
      })
    )
  )
})

describe("writeFileAtomic", () => {
  it.live("replaces the file and leaves no temp file behind", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const target = path.join(dir, "a.yml")
        fs.writeFileSync(target, "old\n")
        yield* writeFileAtomic(target, "new\n")
        assert.strictEqual(fs.readFileSync(target, "utf8"), "new\n")
        assert.deepStrictEqual(fs.readdirSync(dir), ["a.yml"])
      })
    )
  )

  it.live("keeps the permissions of the file it replaces (a 0600 config stays private); a new file is 0644", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        for (const mode of [0o600, 0o640]) {
          const target = path.join(dir, `m${mode.toString(8)}.yml`)
          fs.writeFileSync(target, "old\n", { mode })
          fs.chmodSync(target, mode)
          yield* writeFileAtomic(target, "new\n")
          assert.strictEqual(fs.statSync(target).mode & 0o777, mode, mode.toString(8))
        }
        const fresh = path.join(dir, "fresh.yml")
        yield* writeFileAtomic(fresh, "new\n")
        assert.strictEqual(fs.statSync(fresh).mode & 0o777, 0o644)
        const key = path.join(dir, "key.pem")
        fs.writeFileSync(key, "old\n", { mode: 0o644 })
        yield* writeFileAtomic(key, "new\n", { mode: 0o600 })
        assert.strictEqual(fs.statSync(key).mode & 0o777, 0o600)
      })
    )
  )

  it.live("writes through a symlink: the file it points to is replaced and the link stays", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        fs.mkdirSync(path.join(dir, "managed"))
        const real = path.join(dir, "managed", "gatehouse.yml")
        fs.writeFileSync(real, "old\n")
        const link = path.join(dir, "gatehouse.yml")
        fs.symlinkSync(real, link)
        yield* writeFileAtomic(link, "new\n")
        assert.isTrue(fs.lstatSync(link).isSymbolicLink())
        assert.strictEqual(fs.readFileSync(real, "utf8"), "new\n")
        assert.deepStrictEqual(fs.readdirSync(path.join(dir, "managed")), ["gatehouse.yml"])
      })
    )
  )

  it.live("leaves the old file and no temp file when the write fails", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const target = path.join(dir, "taken")
        fs.mkdirSync(target) // renaming a file over a directory fails
        const failure = yield* Effect.flip(writeFileAtomic(target, "new\n"))
        assert.instanceOf(failure, FileSystemFailure)
        assert.strictEqual(failure.code, "EISDIR")
        assert.deepStrictEqual(fs.readdirSync(dir), ["taken"])
      })
    )
  )

  it.live("a write the file system refuses fails with the reason alone (no path), and leaves nothing behind", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // A directory this process may not create files in: root may create files anywhere but in /sys.
        const dir = process.getuid?.() === 0 ? "/sys" : yield* tempDir
        if (dir !== "/sys") fs.chmodSync(dir, 0o500)
        const failure = yield* Effect.flip(writeFileAtomic(path.join(dir, "routes.yml"), "app:\n  port: 1\n"))
        assert.instanceOf(failure, FileSystemFailure)
        assert.oneOf(failure.code, ["EACCES", "EROFS", "EPERM"])
        assert.match(failure.reason, /^(permission denied|the file system is read-only|operation not permitted) \(E/)
        assert.notInclude(failure.reason, dir)
        assert.deepStrictEqual(fs.readdirSync(dir).filter(isStaleTempFile), [])
        if (dir !== "/sys") fs.chmodSync(dir, 0o700)
      })
    )
  )
})

describe("resolveInside of a directory that is gone", () => {
  it.effect("is the file system's failure (a 503 to a client), not a defect", () =>
    Effect.gen(function* () {
      const root = path.join(yield* tempDir, "gone")
      const error = yield* Effect.flip(resolveInside(root, "a.yml"))
      assert.instanceOf(error, FileSystemFailure)
      assert.strictEqual(error.code, "ENOENT")
    })
  )
})
