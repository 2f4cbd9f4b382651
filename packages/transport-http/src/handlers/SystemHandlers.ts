import { GatehouseApi } from "@gatehouse-edge/contract/api"
import type { VersionInfo } from "@gatehouse-edge/core/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"

/** What `GET /version` and `GET /openapi.*` serve: set by whoever runs the server. */
export class ServerDescription extends Context.Service<
  ServerDescription,
  {
    readonly version: VersionInfo
    /**
     * The OpenAPI document as JSON and as YAML text. Rendered when first asked for, not at start: rendering
     * takes ~200 ms of CPU, and the YAML text alone is ~0.5 MB of heap that an idle server would otherwise keep.
     */
    readonly openApi: Effect.Effect<{ readonly json: Record<string, unknown>; readonly yamlText: string }>
  }
>()("@gatehouse-edge/transport-http/ServerDescription") {}

/** Handlers of the public `system` group. */
export const SystemHandlers = HttpApiBuilder.group(GatehouseApi, "system", (handlers) =>
  Effect.gen(function* () {
    const description = yield* ServerDescription
    return handlers
      .handle("version", () => Effect.succeed(description.version))
      .handle("openapiJson", () => Effect.map(description.openApi, (documents) => documents.json))
      .handle("openapiYaml", () => Effect.map(description.openApi, (documents) => documents.yamlText))
  })
)
