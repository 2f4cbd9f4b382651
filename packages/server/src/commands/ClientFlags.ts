import * as fs from "node:fs/promises"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { adminKeyPath } from "../AdminKeyPath.js"
import { failWith } from "./ServerConfig.js"

/** The flags every command that calls a running server takes, whichever API it calls. */
export const clientFlags = {
  config: Flag.String("config").pipe(Flag.withDescription("Config file (as for serve)"), Flag.optional),
  data: Flag.String("data").pipe(
    Flag.withDescription("Data directory, where admin.key is read from (default ./data)"),
    Flag.optional
  ),
  apiKeyFile: Flag.String("api-key-file").pipe(
    Flag.withDescription("File holding the API key (default: GATEHOUSE_API_KEY, then <data>/admin.key)"),
    Flag.optional
  ),
  json: Flag.Boolean("json").pipe(Flag.withDescription("Print JSON instead of text"), Flag.withDefault(false))
}

/** Reads a file a command needs, or fails with one line naming it. */
export const readFileFor = (file: string, what: string) =>
  Effect.tryPromise(() => fs.readFile(file)).pipe(
    Effect.catch((error) =>
      failWith([`gatehouse: cannot read ${what} ${file}: ${(error.cause as NodeJS.ErrnoException).code ?? error}`])
    )
  )

/** Whether the command was given its API key (`--api-key-file` or `GATEHOUSE_API_KEY`) rather than left to find it. */
export const apiKeyGiven = (apiKeyFile: Option.Option<string>): boolean =>
  Option.isSome(apiKeyFile) || (process.env.GATEHOUSE_API_KEY?.trim() ?? "") !== ""

/**
 * The API key: from `--api-key-file`, else `GATEHOUSE_API_KEY`, else `<data>/admin.key` — never from the command
 * line, where other users could read it.
 */
export const readApiKey = (apiKeyFile: Option.Option<string>, dataDir: string) => {
  // Trimmed as the file is: a key set with its newline (a pasted CI secret) would go out with it, which gRPC
  // metadata refuses, as a stream's upgrade did.
  const fromEnv = process.env.GATEHOUSE_API_KEY?.trim()
  const file = Option.getOrUndefined(apiKeyFile)
  if (file === undefined && fromEnv !== undefined && fromEnv !== "") return Effect.succeed(fromEnv)
  return Effect.map(
    file !== undefined ? readFileFor(file, "the API key file") : readFileFor(adminKeyPath(dataDir), "the admin key"),
    (bytes) => bytes.toString("utf8").trim()
  )
}
