import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliExit } from "../CliExit.js"

// The documents are rendered from the HTTP transport's API, loaded when the command runs: see Serve.ts.
const loadDocuments = () => Effect.promise(() => import("../OpenApiDocuments.js"))

/** `gatehouse openapi`: prints the OpenAPI document (JSON, or YAML with `--yaml`), or writes both with `--out`. */
export const openApiCommand = Command.make(
  "openapi",
  {
    yaml: Flag.Boolean("yaml").pipe(Flag.withDescription("Print YAML instead of JSON"), Flag.withDefault(false)),
    out: Flag.String("out").pipe(
      Flag.withDescription("Write openapi.json and openapi.yaml into this directory"),
      Flag.optional
    )
  },
  Effect.fn("gatehouse.openapi")(function* ({ yaml, out }) {
    const documents = (yield* loadDocuments()).renderOpenApi()
    if (Option.isSome(out)) {
      const dir = out.value
      yield* Effect.tryPromise(() => fs.mkdir(dir, { recursive: true })).pipe(
        Effect.andThen(Effect.tryPromise(() => fs.writeFile(path.join(dir, "openapi.json"), documents.jsonText))),
        Effect.andThen(Effect.tryPromise(() => fs.writeFile(path.join(dir, "openapi.yaml"), documents.yamlText))),
        Effect.catch((error) =>
          Effect.andThen(
            Console.error(`gatehouse openapi: cannot write into ${dir}: ${String(error.cause ?? error)}`),
            Effect.fail(new CliExit({ code: 1 }))
          )
        )
      )
      return yield* Console.log(`wrote ${path.join(dir, "openapi.json")} and openapi.yaml`)
    }
    yield* Console.log(yaml ? documents.yamlText.trimEnd() : documents.jsonText.trimEnd())
  })
).pipe(Command.withDescription("Print the OpenAPI 3.1 description of the HTTP API"))
