import { Effect } from "effect"
import { startDockerd } from "../support/Dockerd.js"
import { startTestServer, type TestServerOptions } from "../support/TestServer.js"

/**
 * A real dockerd and the real server composition configured with it as the engine `local` (plus `options`, e.g.
 * route files), for one test scope; `url`/`ws` make API addresses.
 */
export const dockerWorld = (options: Omit<TestServerOptions, "configYaml"> = {}) =>
  Effect.gen(function* () {
    const engine = yield* startDockerd
    const server = yield* startTestServer({
      ...options,
      configYaml: `docker:\n  hosts:\n    - { name: local, url: "unix://${engine.socket}" }\n`
    })
    const url = (p: string) => `${server.baseUrl}${p}`
    const ws = (p: string) => `${server.wsUrl}${p}`
    return { engine, server, url, ws, key: server.apiKey }
  })
