import { GatehouseApi } from "@gatehouse-edge/contract/api"
import { type FileType, fileAccessScope, MissingScope, maxFileBytes, missingScope } from "@gatehouse-edge/core/domain"
import { CurrentPrincipal, Files } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { announcedBodyBytes, readTextBody } from "../middleware/TextBody.js"
import { etagOf, writeConditionsOf, writePrecondition } from "./EntityTags.js"
import { jsonResponse } from "./JsonResponse.js"

/**
 * The endpoint's own scope (`files:read`/`files:write`) is checked by the middleware; a file's kind can need more
 * (the config file: `admin`, see `fileAccessScope`), which only the query says.
 */
const requireAccess = (type: FileType, access: "read" | "write") =>
  Effect.flatMap(CurrentPrincipal, (principal) => {
    const missing = missingScope(principal.scopes, fileAccessScope(type, access))
    return missing === undefined ? Effect.void : Effect.fail(new MissingScope({ scope: missing }))
  })

// The version of the file a 200 answers with (its body stays the typed value the contract declares).
const withEtag = (revision: string) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "etag", etagOf(revision)))
  )

/** Handlers of the `files` group. */
export const FilesHandlers = HttpApiBuilder.group(GatehouseApi, "files", (handlers) =>
  Effect.gen(function* () {
    const files = yield* Files
    return (
      handlers
        .handle("list", () => files.list)
        .handle("read", ({ query }) =>
          requireAccess(query.type, "read").pipe(
            Effect.andThen(files.read(query.type, query.filename)),
            Effect.tap((file) => withEtag(file.revision)),
            Effect.map((file) => file.content)
          )
        )
        // The body (a whole file) is read here, not by HttpApi: after authentication (see RequestValidationLayer),
        // and only once the write has room in its queue for the most it can be, so requests in flight hold no body
        // the queue would refuse. Its UTF-8 is checked as it is read.
        .handleRaw("write", ({ query, request }) =>
          Effect.andThen(requireAccess(query.type, "write"), writeConditionsOf(request)).pipe(
            Effect.flatMap((conditions) =>
              files.write(
                query.type,
                query.filename,
                { maxBytes: announcedBodyBytes(request, maxFileBytes), read: readTextBody(request) },
                writePrecondition(conditions)
              )
            ),
            Effect.tap((result) => withEtag(result.revision)),
            Effect.map((result) => result.written)
          )
        )
        // Rendered like the route validation answer (see RoutesHandlers). Checking a config reads the server's
        // environment (`${NAME}`), so it takes what reading the config file takes.
        .handle("validate", ({ query, payload }) =>
          Effect.andThen(
            requireAccess(query.type, "read"),
            Effect.map(files.validateJson(query.type, payload), jsonResponse)
          )
        )
    )
  })
)
