import * as fs from "node:fs/promises"
import * as path from "node:path"
import { formatListenAddress, type GatehouseConfig } from "@gatehouse-edge/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const exampleRoutes = (
  http: GatehouseConfig["http"]
) => `# Example routes, written on first start. Edit this file (or add more *.yml files here):
# Gatehouse validates every change and reloads; an invalid change is reported and the running routes stay.
#
# Each key is a route alias; see the README for every field.

# Gatehouse itself: its version endpoint is public, so this route reports healthy.
gatehouse:
  scheme: http
  host: ${http.host === "0.0.0.0" ? "127.0.0.1" : http.host}
  port: ${http.port === 0 ? 8888 : http.port}
  healthcheck:
    path: /api/v1/version

# An app you might run next to it; unhealthy until something listens on port 3000.
my-app:
  host: 127.0.0.1
  port: 3000
  healthcheck:
    path: /
    use_get: true

# A TCP route: listens on 127.0.0.1:2222 and forwards to SSH on port 22.
ssh-local:
  scheme: tcp
  host: 127.0.0.1
  port: "2222:22"
  bind: 127.0.0.1
`

/**
 * On the first start on embedded defaults (no config file, no routes directory yet), creates the routes
 * directory with an example route file, so a new user sees routes, health and events at once.
 */
export const ensureExampleRoutes = (config: GatehouseConfig): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (config.configFile !== undefined) return
    const exists = yield* Effect.promise(() =>
      fs.stat(config.routesDir).then(
        () => true,
        () => false
      )
    )
    if (exists) return
    const file = path.join(config.routesDir, "example.yml")
    yield* Effect.tryPromise(async () => {
      await fs.mkdir(config.routesDir, { recursive: true })
      await fs.writeFile(file, exampleRoutes(config.http), { flag: "wx" })
    }).pipe(
      Effect.andThen(
        // A log line, not a plain one: a JSON log stays one object a line.
        Effect.logInfo(`wrote example routes to ${file} (http server ${formatListenAddress(config.http)})`)
      ),
      // Only an example: the start goes on, and the routes directory's own check says what is wrong with it.
      Effect.catch((error) =>
        Console.error(`gatehouse: no example routes written to ${file}: ${(error.cause as Error).message}`)
      )
    )
  })
