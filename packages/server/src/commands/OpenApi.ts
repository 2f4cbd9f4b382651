import * as fs from "node:fs"
import * as path from "node:path"
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { renderOpenApi } from "../OpenApiDocuments.js"

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
    const documents = renderOpenApi()
    if (Option.isSome(out)) {
      fs.mkdirSync(out.value, { recursive: true })
      fs.writeFileSync(path.join(out.value, "openapi.json"), documents.jsonText)
      fs.writeFileSync(path.join(out.value, "openapi.yaml"), documents.yamlText)
      return yield* Console.log(`wrote ${path.join(out.value, "openapi.json")} and openapi.yaml`)
    }
    yield* Console.log(yaml ? documents.yamlText.trimEnd() : documents.jsonText.trimEnd())
  })
).pipe(Command.withDescription("Print the OpenAPI 3.1 description of the HTTP API"))
