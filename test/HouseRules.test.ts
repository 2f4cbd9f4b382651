import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "vitest"

// Rules of DESIGN.md that a reader cannot check file by file, proven over every source file: errors are matched by
// class, never by comparing their `_tag` strings (nor by `catchTag`); no synchronous `fs` in library code;
// try/catch only in the pure, synchronous modules listed here (each with why), never in Effect code.

const repoRoot = path.resolve(import.meta.dirname, "..")

const sourceFiles = (): ReadonlyArray<string> =>
  fs
    .readdirSync(path.join(repoRoot, "packages"))
    .flatMap((pkg) => {
      const src = path.join(repoRoot, "packages", pkg, "src")
      return fs.existsSync(src)
        ? (fs.readdirSync(src, { recursive: true }) as Array<string>).map((f) => path.join(src, f))
        : []
    })
    .filter((file) => file.endsWith(".ts") && !file.includes(`${path.sep}gen${path.sep}`))
    .map((file) => path.relative(repoRoot, file).split(path.sep).join("/"))

/** Pure, synchronous modules whose try/catch does not sit in Effect code, and why each needs one. */
const tryCatchAllowed: Readonly<Record<string, string>> = {
  "packages/core/src/yaml/YamlAudit.ts": "the yaml parser throws on alias cycles while the audit walks a document",
  "packages/core/src/yaml/NestingScan.ts": "the scanner unwinds from any depth with one exception at the limit",
  "packages/core/src/yaml/GuardedParse.ts": "turns a parser stack overflow into an issue at a position",
  "packages/core/src/yaml/YamlDocument.ts": "yaml's parser reports some errors by throwing",
  "packages/core/src/config/EnvOverrides.ts": "a variable's value is parsed as YAML, which throws on bad input",
  "packages/core/src/validation/ValidationWorker.ts": "a worker thread's entry: a bug must be replied, not crash it",
  "packages/server/src/LeanJsonLogger.ts": "JSON.stringify throws on bigints and cycles (then the general formatter)",
  "packages/client/src/PromiseClient.ts": "the Promise facade ends an async iterator in finally"
}

const syncFs =
  /\b(?:readFileSync|writeFileSync|existsSync|statSync|lstatSync|mkdirSync|readdirSync|rmSync|renameSync|openSync|appendFileSync|unlinkSync)\(/

/**
 * The `_tag` strings of the error classes declared in the sources, less those that also tag plain data (a report
 * variant `{ _tag: "InvalidYaml", issues }` is matched by its tag, as data should be).
 */
const errorTags = (texts: ReadonlyArray<string>): ReadonlySet<string> => {
  const dataTags = new Set(texts.flatMap((text) => [...text.matchAll(/_tag:\s*"(\w+)"/g)].map((match) => match[1]!)))
  return new Set([...declaredErrorTags(texts)].filter((tag) => !dataTags.has(tag)))
}

const declaredErrorTags = (texts: ReadonlyArray<string>): ReadonlySet<string> =>
  new Set(
    texts.flatMap((text) =>
      [...text.matchAll(/(?:TaggedError|ApiError<\w+>\(\))\(\s*"(\w+)"/g)].map((match) => match[1]!)
    )
  )

/** Where `text` compares a `_tag` with one of `tags`. */
const tagComparisons = (text: string, tags: ReadonlySet<string>): ReadonlyArray<string> =>
  [...text.matchAll(/_tag\s*[!=]==?\s*"(\w+)"|"(\w+)"\s*[!=]==?\s*[\w.]*_tag/g)]
    .map((match) => match[1] ?? match[2]!)
    .filter((tag) => tags.has(tag))

const violations = (files: ReadonlyArray<{ readonly file: string; readonly text: string }>) => {
  const tags = errorTags(files.map((f) => f.text))
  return files.flatMap(({ file, text }) => [
    ...tagComparisons(text, tags).map((tag) => `${file}: compares _tag with the error tag "${tag}"`),
    ...(/\.catchTags?\(/.test(text) ? [`${file}: catches an error by its tag string (catchTag)`] : []),
    ...(syncFs.test(text) ? [`${file}: synchronous fs`] : []),
    ...(/\btry\s*\{/.test(text) && tryCatchAllowed[file] === undefined ? [`${file}: try/catch`] : [])
  ])
}

describe("house rules", () => {
  it("hold in every source file", () => {
    const files = sourceFiles().map((file) => ({ file, text: fs.readFileSync(path.join(repoRoot, file), "utf8") }))
    assert.isAbove(files.length, 100)
    assert.isAbove(errorTags(files.map((f) => f.text)).size, 20)
    assert.deepStrictEqual(violations(files), [])
  })

  it("every try/catch exception still names a file that has one", () => {
    for (const file of Object.keys(tryCatchAllowed)) {
      assert.match(fs.readFileSync(path.join(repoRoot, file), "utf8"), /\btry\s*\{/, file)
    }
  })

  it("the checks catch what they are for (negative control)", () => {
    const bad = [
      { file: "a.ts", text: 'export class Nope extends Data.TaggedError("Nope")<{}> {}' },
      { file: "b.ts", text: 'if (error._tag === "Nope") retry()\nconst x = fs.readFileSync(p)\ntry { f() } catch {}' },
      { file: "c.ts", text: 'if (result._tag === "Valid") ok()' },
      { file: "e.ts", text: 'effect.pipe(Effect.catchTag("Nope", () => Effect.void))' },
      // A tag shared by an error class and a data variant is data's: not flagged.
      {
        file: "d.ts",
        text: 'class Both extends Data.TaggedError("Both")<{}> {}\ntype R = { _tag: "Both" }\nr._tag === "Both"'
      }
    ]
    assert.deepStrictEqual(violations(bad), [
      'b.ts: compares _tag with the error tag "Nope"',
      "b.ts: synchronous fs",
      "b.ts: try/catch",
      "e.ts: catches an error by its tag string (catchTag)"
    ])
  })
})
