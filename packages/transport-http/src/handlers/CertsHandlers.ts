import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { Certificates } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { serveStream, streamOrPlain } from "../websocket/StreamEndpoint.js"

/**
 * Handlers of the `certs` group: thin calls into the core port. A renewal over WebSocket is started (and a running
 * one refused, 409) before the upgrade.
 */
export const CertsHandlers = HttpApiBuilder.group(GatehouseApi, "certs", (handlers) =>
  Effect.gen(function* () {
    const certificates = yield* Certificates
    return handlers
      .handle("info", () => certificates.info)
      .handle("renew", ({ request, query }) =>
        streamOrPlain(
          StreamEndpoints.certRenew,
          request,
          (endpoint) =>
            Effect.flatMap(certificates.renewWithProgress(query.name), (frames) => serveStream(endpoint, frames)),
          certificates.renew(query.name)
        )
      )
  })
)
