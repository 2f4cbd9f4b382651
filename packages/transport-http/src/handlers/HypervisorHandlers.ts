import {
  GatehouseApi,
  type StreamEndpoint,
  type StreamEndpointName,
  StreamEndpoints
} from "@gatehouse-edge/contract/api"
import { UpgradeRequired } from "@gatehouse-edge/core/domain"
import { CurrentPrincipal, Hypervisor } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import { isWebSocketUpgrade, serveStream } from "../websocket/StreamEndpoint.js"

type LineStream = StreamEndpoint<"hypervisor", StreamEndpointName<"hypervisor">, typeof Schema.String>

/**
 * Handlers of the `hypervisor` group: thin calls into the core port. Journal and tail streams are prepared by
 * the service (every check, no connection yet) before the upgrade, so a refusal is a plain HTTP error.
 */
export const HypervisorHandlers = HttpApiBuilder.group(GatehouseApi, "hypervisor", (handlers) =>
  Effect.gen(function* () {
    const hypervisor = yield* Hypervisor

    const lines =
      <S extends LineStream>(endpoint: S, path: string) =>
      <E, R, E2, R2>(
        request: HttpServerRequest.HttpServerRequest,
        prepared: Effect.Effect<Stream.Stream<string, E2, R2>, E, R>
      ) =>
        isWebSocketUpgrade(request)
          ? Effect.flatMap(prepared, (stream) => serveStream(endpoint, stream))
          : Effect.fail(new UpgradeRequired({ path }))

    return handlers
      .handle("nodes", () => hypervisor.nodes)
      .handle("clusters", () => hypervisor.cacheState)
      .handle("guests", () => hypervisor.guests)
      .handle("nodeStats", ({ request, params }) =>
        isWebSocketUpgrade(request)
          ? Effect.andThen(
              hypervisor.nodeStats(params.node),
              serveStream(StreamEndpoints.nodeStats, hypervisor.watchNodeStats(params.node))
            )
          : hypervisor.nodeStats(params.node)
      )
      .handle("guestStats", ({ request, params }) =>
        isWebSocketUpgrade(request)
          ? Effect.andThen(
              hypervisor.guestStatsLine(params.node, params.vmid),
              serveStream(StreamEndpoints.guestStats, hypervisor.watchGuestStatsLine(params.node, params.vmid))
            )
          : hypervisor.guestStatsLine(params.node, params.vmid)
      )
      .handle("journal", ({ request, query }) =>
        lines(StreamEndpoints.journal, "/api/v1/hypervisor/journalctl")(
          request,
          hypervisor.journal({ node: query.node, vmid: query.vmid, services: query.service, limit: query.limit })
        )
      )
      .handle("nodeJournal", ({ request, params, query }) =>
        lines(StreamEndpoints.nodeJournal, `/api/v1/hypervisor/journalctl/${params.node}`)(
          request,
          hypervisor.journal({ node: params.node, services: query.service, limit: query.limit })
        )
      )
      .handle("guestJournal", ({ request, params, query }) =>
        lines(StreamEndpoints.guestJournal, `/api/v1/hypervisor/journalctl/${params.node}/${params.vmid}`)(
          request,
          hypervisor.journal({ node: params.node, vmid: params.vmid, services: query.service, limit: query.limit })
        )
      )
      .handle("unitJournal", ({ request, params, query }) =>
        lines(StreamEndpoints.unitJournal, `/api/v1/hypervisor/journalctl/${params.node}/${params.vmid}/{service}`)(
          request,
          hypervisor.journal({ node: params.node, vmid: params.vmid, services: [params.service], limit: query.limit })
        )
      )
      .handle("tail", ({ request, query }) =>
        lines(StreamEndpoints.tail, "/api/v1/hypervisor/tail")(
          request,
          hypervisor.tail({ node: query.node, vmid: query.vmid, files: query.file, limit: query.limit })
        )
      )
      .handle("lxc", ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          hypervisor.lxc(params.node, params.vmid, params.action, principal.subject)
        )
      )
  })
)
