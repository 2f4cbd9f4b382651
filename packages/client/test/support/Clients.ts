import { GatehouseClient, type GatehouseClientShape } from "@gatehouse-edge/client"
import { Effect } from "effect"

/** A client of the server at `baseUrl` with `apiKey`. */
export const clientFor = (baseUrl: string, apiKey: string): Effect.Effect<GatehouseClientShape> =>
  Effect.service(GatehouseClient).pipe(Effect.provide(GatehouseClient.layer({ baseUrl, apiKey })))

/** A route file with one HTTP route to a closed loopback port (its health check fails fast). */
export const routeFile = (alias: string, port = 9) => `${alias}:\n  host: 127.0.0.1\n  port: ${port}\n`
