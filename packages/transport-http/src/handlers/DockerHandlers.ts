import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { Docker } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { serveStream, streamOrPlain } from "../websocket/StreamEndpoint.js"

/**
 * Handlers of the `docker` group: thin calls into the core port. A stream's container is found before the
 * upgrade, so a bad or unknown id is a plain 400/404/409.
 */
export const DockerHandlers = HttpApiBuilder.group(GatehouseApi, "docker", (handlers) =>
  Effect.gen(function* () {
    const docker = yield* Docker
    return handlers
      .handle("containers", ({ request }) =>
        streamOrPlain(
          StreamEndpoints.dockerContainers,
          request,
          (endpoint) => Effect.andThen(docker.containers, serveStream(endpoint, docker.watchContainers)),
          docker.containers
        )
      )
      .handle("stats", ({ request, params }) =>
        streamOrPlain(
          StreamEndpoints.dockerStats,
          request,
          (endpoint) => Effect.flatMap(docker.watchStats(params.id), (stream) => serveStream(endpoint, stream)),
          docker.stats(params.id)
        )
      )
      .handle("logs", ({ request, params, query }) =>
        streamOrPlain(
          StreamEndpoints.dockerLogs,
          request,
          (endpoint) => Effect.flatMap(docker.followLogs(params.id, query), (stream) => serveStream(endpoint, stream)),
          docker.logs(params.id, query)
        )
      )
      .handle("act", ({ params }) => docker.act(params.id, params.action))
  })
)
