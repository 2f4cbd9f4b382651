import type { VersionInfo } from "@gatehouse-edge/core/domain"
import { Context, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatehouseApi } from "../api/GatehouseApi.js"

/** What `GET /version` and `GET /openapi.*` serve: set by whoever runs the server. */
export class ServerDescription extends Context.Service<
  ServerDescription,
  {
    readonly version: VersionInfo
    readonly openApiJson: Record<string, unknown>
    readonly openApiYaml: string
  }
>()("@gatehouse-edge/transport-http/ServerDescription") {}

/** Handlers of the public `system` group. */
export const SystemHandlers = HttpApiBuilder.group(GatehouseApi, "system", (handlers) =>
  Effect.gen(function* () {
    const description = yield* ServerDescription
    return handlers
      .handle("version", () => Effect.succeed(description.version))
      .handle("openapiJson", () => Effect.succeed(description.openApiJson))
      .handle("openapiYaml", () => Effect.succeed(description.openApiYaml))
  })
)
