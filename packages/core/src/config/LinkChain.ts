import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"

/** Where a path leads: the file it resolves to, and each symbolic link followed on the way there. */
export interface LinkChain {
  /** The path with every link followed; as far as it exists, then as written. */
  readonly file: string
  /** The links followed, as absolute paths, in the order they were met. */
  readonly links: ReadonlyArray<string>
}

// As many links as Linux follows in one lookup (MAXSYMLINKS): past it the path is a loop, followed no further.
const MAX_LINKS = 40

// The target of a link, or `undefined` for a path that is not a link (or not there).
const readLink = (file: string): Effect.Effect<string | undefined> =>
  Effect.tryPromise(() => fsp.readlink(file)).pipe(Effect.orElseSucceed(() => undefined))

/**
 * Follows `file` one component at a time, as the kernel does, noting every symbolic link on the way: a link
 * anywhere on the path (`etc/gatehouse.yml -> current/gatehouse.yml`, `current -> v1`) decides which file the path
 * reads, and pointing any of them elsewhere changes it. One `readlink` per component.
 */
export const linkChain = (file: string): Effect.Effect<LinkChain> =>
  Effect.gen(function* () {
    // Not `path.resolve`: it would take `link/..` away before the link is followed.
    const absolute = path.isAbsolute(file) ? file : `${process.cwd()}${path.sep}${file}`
    const root = path.parse(absolute).root
    const components = (text: string) => text.split(path.sep).filter((part) => part !== "" && part !== ".")
    let pending = components(absolute)
    let current = root
    const links: Array<string> = []
    while (pending.length > 0) {
      const [name, ...rest] = pending as [string, ...Array<string>]
      pending = rest
      if (name === "..") {
        current = path.dirname(current)
        continue
      }
      const next = path.join(current, name)
      const target = links.length < MAX_LINKS ? yield* readLink(next) : undefined
      if (target === undefined) {
        current = next
        continue
      }
      links.push(next)
      if (path.isAbsolute(target)) current = root
      pending = [...components(target), ...pending]
    }
    return { file: current, links }
  })
