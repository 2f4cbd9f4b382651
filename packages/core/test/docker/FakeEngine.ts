import * as http from "node:http"
import type * as net from "node:net"
import { Context, Effect, Layer } from "effect"
import { Docker } from "../../src/docker/Docker.js"
import * as DockerLive from "../../src/docker/DockerLive.js"

// The engine's side of a few Docker API calls, played by a loopback HTTP server (as EngineHttpStream.test.ts plays
// the wire), for what the service makes of answers a real dockerd gives only under load or when broken: a log too
// large to hold, a stream line that is not JSON. The suites in test/docker run the same service against dockerd.

/** One container the engine lists (`GET /containers/json`) and inspects (`GET /containers/{id}/json`). */
export const container = { id: "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", name: "mixed" }

export type Answer = (url: URL, response: http.ServerResponse) => void

/** A loopback engine that answers the container's list and inspection itself and every other request by `answer`. */
export const fakeEngine = (answer: Answer) =>
  Effect.gen(function* () {
    const requests: Array<URL> = []
    const server = http.createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://docker")
      requests.push(url)
      response.on("error", () => {})
      if (url.pathname === "/containers/json") {
        const listed = { Id: container.id, Names: [`/${container.name}`], Image: "busybox", State: "running" }
        return json(response, [{ ...listed, Status: "Up", Labels: {} }])
      }
      if (url.pathname === `/containers/${container.id}/json`) {
        return json(response, { Id: container.id, Config: { Tty: false }, State: { Status: "running" } })
      }
      if (url.pathname === "/_ping") return void response.end("OK")
      answer(url, response)
    })
    server.on("clientError", (_error, socket) => socket.destroy())
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as net.AddressInfo).port
    return { url: `tcp://127.0.0.1:${port}`, requests }
  })

const json = (response: http.ServerResponse, body: unknown) => {
  response.writeHead(200, { "Content-Type": "application/json" })
  response.end(JSON.stringify(body))
}

/** The real Docker service over one engine, named `fake` (scoped). */
export const serviceOver = (url: string, options: DockerLive.DockerLiveOptions = {}) =>
  Effect.map(
    Layer.build(Layer.effect(Docker)(DockerLive.make({ hosts: [{ name: "fake", url, tls: undefined }] }, options))),
    (context) => Context.get(context, Docker)
  )
