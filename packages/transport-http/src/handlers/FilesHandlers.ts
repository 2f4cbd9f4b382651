import { Files } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { GatehouseApi } from "../api/GatehouseApi.js"
import { jsonResponse } from "./JsonResponse.js"

/** Handlers of the `files` group. */
export const FilesHandlers = HttpApiBuilder.group(GatehouseApi, "files", (handlers) =>
  Effect.gen(function* () {
    const files = yield* Files
    return (
      handlers
        .handle("list", () => files.list)
        .handle("read", ({ query }) => files.read(query.type, query.filename))
        .handle("write", ({ query, payload }) => files.write(query.type, query.filename, payload))
        // Rendered like the route validation answer (see RoutesHandlers).
        .handle("validate", ({ query, payload }) => Effect.map(files.validateJson(query.type, payload), jsonResponse))
    )
  })
)
