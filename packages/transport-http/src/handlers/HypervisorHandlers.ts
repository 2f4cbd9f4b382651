import {
  GatehouseApi,
  type StreamEndpoint,
  type StreamEndpointName,
  StreamEndpoints
} from "@gatehouse-edge/contract/api"
import { CurrentPrincipal, Hypervisor } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import { serveStream, streamOnly, streamOrPlain } from "../websocket/StreamEndpoint.js"

/** A stream of text lines of the group, declared upgrade-only (a plain GET answers 426). */
type LineStream = StreamEndpoint<"hypervisor", StreamEndpointName<"hypervisor">, typeof Schema.String, undefined, true>

/**
 * Handlers of the `hypervisor` group: thin calls into the core port. Journal and tail streams are prepared by
 * the service (every check, no connection yet) before the upgrade, so a refusal is a plain HTTP error.
 */
export const HypervisorHandlers = HttpApiBuilder.group(GatehouseApi, "hypervisor", (handlers) =>
  Effect.gen(function* () {
    const hypervisor = yield* Hypervisor

    // A stream of a remote command's lines: prepared (every check), then served.
    const lines = <E, R, E2, R2>(
      endpoint: LineStream,
      request: HttpServerRequest.HttpServerRequest,
      prepared: Effect.Effect<Stream.Stream<string, E2, R2>, E, R>
    ) =>
      streamOnly(endpoint, request, (declared) => Effect.flatMap(prepared, (stream) => serveStream(declared, stream)))

    return handlers
      .handle("nodes", () => hypervisor.nodes)
      .handle("clusters", () => hypervisor.cacheState)
      .handle("guests", () => hypervisor.guests)
      .handle("nodeStats", ({ request, params }) =>
        streamOrPlain(
          StreamEndpoints.nodeStats,
          request,
          (endpoint) =>
            Effect.andThen(
              hypervisor.nodeStats(params.node),
              serveStream(endpoint, hypervisor.watchNodeStats(params.node))
            ),
          hypervisor.nodeStats(params.node)
        )
      )
      .handle("guestStats", ({ request, params }) =>
        streamOrPlain(
          StreamEndpoints.guestStats,
          request,
          (endpoint) =>
            Effect.andThen(
              hypervisor.guestStatsLine(params.node, params.vmid),
              serveStream(endpoint, hypervisor.watchGuestStatsLine(params.node, params.vmid))
            ),
          hypervisor.guestStatsLine(params.node, params.vmid)
        )
      )
      .handle("journal", ({ request, query }) =>
        lines(
          StreamEndpoints.journal,
          request,
          hypervisor.journal({ node: query.node, vmid: query.vmid, services: query.service, limit: query.limit })
        )
      )
      .handle("nodeJournal", ({ request, params, query }) =>
        lines(
          StreamEndpoints.nodeJournal,
          request,
          hypervisor.journal({ node: params.node, services: query.service, limit: query.limit })
        )
      )
      .handle("guestJournal", ({ request, params, query }) =>
        lines(
          StreamEndpoints.guestJournal,
          request,
          hypervisor.journal({ node: params.node, vmid: params.vmid, services: query.service, limit: query.limit })
        )
      )
      .handle("unitJournal", ({ request, params, query }) =>
        lines(
          StreamEndpoints.unitJournal,
          request,
          hypervisor.journal({ node: params.node, vmid: params.vmid, services: [params.service], limit: query.limit })
        )
      )
      .handle("tail", ({ request, query }) =>
        lines(
          StreamEndpoints.tail,
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
