import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { Docker } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { isWebSocketUpgrade, serveStream } from "../websocket/StreamEndpoint.js"

/**
 * Handlers of the `docker` group: thin calls into the core port. A stream's container is found before the
 * upgrade, so a bad or unknown id is a plain 400/404/409.
 */
export const DockerHandlers = HttpApiBuilder.group(GatehouseApi, "docker", (handlers) =>
  Effect.gen(function* () {
    const docker = yield* Docker
    return handlers
      .handle("containers", ({ request }) =>
        isWebSocketUpgrade(request)
          ? Effect.andThen(docker.containers, serveStream(StreamEndpoints.dockerContainers, docker.watchContainers))
          : docker.containers
      )
      .handle("stats", ({ request, params }) =>
        isWebSocketUpgrade(request)
          ? Effect.flatMap(docker.watchStats(params.id), (stream) => serveStream(StreamEndpoints.dockerStats, stream))
          : docker.stats(params.id)
      )
      .handle("logs", ({ request, params, query }) =>
        isWebSocketUpgrade(request)
          ? Effect.flatMap(docker.followLogs(params.id, query), (stream) =>
              serveStream(StreamEndpoints.dockerLogs, stream)
            )
          : docker.logs(params.id, query)
      )
      .handle("act", ({ params }) => docker.act(params.id, params.action))
  })
)
