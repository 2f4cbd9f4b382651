import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { readTextFile } from "./ReadTextFile.js"
import type { SecretSource } from "./SecretSource.js"

/** A secret file named in the config could not be read, or holds nothing. Names the key and the file, never content. */
export class SecretUnreadable extends Data.TaggedError("SecretUnreadable")<{
  readonly key: string
  readonly path: string
  readonly reason: string
}> {
  override get message() {
    return `cannot read the secret for ${this.key} from ${this.path}: ${this.reason}`
  }
}

/**
 * The secret of a {@link SecretSource}: an inline one as it is, a file's content without its trailing newline
 * (editors and `echo` add one; no secret ends with one). A feature calls it when it starts.
 */
export const readSecret = Effect.fn("readSecret")(function* (source: SecretSource) {
  if (Redacted.isRedacted(source)) return source
  const text = yield* readTextFile(source.path).pipe(
    Effect.mapError((error) => new SecretUnreadable({ key: source.key, path: source.path, reason: error.reason }))
  )
  const secret = text.replace(/(\r?\n)+$/, "")
  if (secret === "") {
    return yield* new SecretUnreadable({ key: source.key, path: source.path, reason: "the file is empty" })
  }
  return Redacted.make(secret)
})
