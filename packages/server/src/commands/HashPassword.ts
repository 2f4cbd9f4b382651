import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { failWith } from "./ServerConfig.js"

// A terminal gets a prompt without echo; anything else (a pipe, a file) is read whole, one trailing newline dropped.
const readAll = Effect.callback<string>((resume) => {
  const chunks: Array<Buffer> = []
  process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk))
  process.stdin.once("end", () =>
    resume(
      Effect.succeed(
        Buffer.concat(chunks)
          .toString("utf8")
          .replace(/\r?\n$/, "")
      )
    )
  )
  process.stdin.resume()
})

const promptHidden = (question: string) =>
  Effect.callback<string>((resume) => {
    const stdin = process.stdin
    let typed = ""
    process.stderr.write(question)
    stdin.setRawMode(true)
    stdin.setEncoding("utf8")
    // The terminal as it was, and nothing left reading it: stdin kept flowing would hold the process open.
    const done = () => {
      stdin.off("data", onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write("\n")
    }
    const onData = (text: string) => {
      for (const char of text) {
        if (char === "\r" || char === "\n" || char === "\u0004") {
          done()
          return resume(Effect.succeed(typed))
        }
        // Ctrl-C in raw mode is a character, not a signal: stop as the signal would (exit 130).
        if (char === "\u0003") {
          done()
          return resume(Effect.interrupt)
        }
        typed = char === "\u007f" || char === "\b" ? typed.slice(0, -1) : typed + char
      }
    }
    stdin.on("data", onData)
    stdin.resume()
  })

const readPassword = Effect.gen(function* () {
  if (!process.stdin.isTTY) return yield* readAll
  const first = yield* promptHidden("Password: ")
  const again = yield* promptHidden("Repeat: ")
  if (first !== again) return yield* failWith(["gatehouse: the passwords differ"])
  return first
})

/**
 * `gatehouse hash-password`: prints an argon2id hash for `auth.users[].password_hash`. The password comes from
 * stdin or a prompt without echo — never from the command line, where `ps` and shell history would show it.
 */
export const hashPasswordCommand = Command.make(
  "hash-password",
  {},
  Effect.fn("gatehouse.hash-password")(function* () {
    const password = yield* readPassword
    if (password === "") return yield* failWith(["gatehouse: empty password"])
    if (password.length > 1024) return yield* failWith(["gatehouse: the password is longer than 1024 characters"])
    // Core is loaded when the command runs: every other command would load it too if it were imported above.
    const { hashPassword } = yield* Effect.promise(() => import("@gatehouse-edge/core"))
    yield* Console.log(yield* hashPassword(password))
  })
).pipe(
  Command.withDescription(
    "Print an argon2id hash of a password read from stdin (or typed at a prompt) for auth.users[].password_hash"
  )
)
