import type { FileType } from "@gatehouse-edge/core/domain"
import * as Argument from "effect/cli/Argument"
import * as Flag from "effect/cli/Flag"
import * as CommandLine from "effect/process/CommandLine"
import * as Result from "effect/Result"

/** `--type`: which kind of file a `gatehouse files` command means. */
export const fileType = Flag.Literals("type", ["routes", "config"]).pipe(
  Flag.withDescription("The kind of file: routes (a route file, default) or config (gatehouse.yml, needs admin)"),
  Flag.withDefault("routes" as const)
)

/** The file's name as the API addresses it. */
export const filename = Argument.String("filename").pipe(
  Argument.withDescription("The file's name in its directory (routes: in the routes directory), e.g. web.yml")
)

/** An ETag shown for a shell: the value between its quotes (`--if-match` takes it either way). */
export const bareEtag = (etag: string): string => etag.replace(/^"(.*)"$/, "$1")

/** A word of a command line shown to be pasted into a shell: as is when it needs no quotes (`web.yml`). */
export const shellWord = (word: string) => Result.getOrElse(CommandLine.quote(word), () => word)

/**
 * The `gatehouse files put` command line that writes `name` over the version `etag` only, or creates it, with the
 * content of `from` when given.
 */
export const putCommandFor = (
  type: FileType,
  name: string,
  version: { readonly etag: string } | "create",
  from?: string
): string =>
  `gatehouse files put ${shellWord(name)}${type === "routes" ? "" : ` --type ${type}`} ` +
  (version === "create" ? "--create" : `--if-match ${shellWord(bareEtag(version.etag))}`) +
  (from === undefined ? "" : ` --from ${shellWord(from)}`)
